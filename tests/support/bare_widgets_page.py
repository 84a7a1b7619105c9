"""A bare Streamlit page with the kinds of element the app uses, in Streamlit's default theme and nothing of ours.

``tests/app/test_accessibility_browser.py`` runs axe-core on it beside the app: what axe finds here is the framework's
own share (the app cannot change how Streamlit draws a slider or a caption), and what it finds only on the app is
the app's. Run from a folder without the project's ``.streamlit/config.toml``.
"""

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import streamlit as st


def bare() -> None:
    st.title("A bare page")
    st.caption("A caption under the title.")
    with st.sidebar:
        st.toggle("A toggle", help="A tooltip.")
        st.markdown("**Sidebar text**")
        st.caption("A caption in the sidebar.")
    st.header("A section")
    epsilon = st.select_slider("Privacy budget ε", options=[0.5, 1.0, 2.0, 3.0, 5.0], value=1.0, help="A tooltip.")
    st.slider("A number", 0, 10, 5)
    st.segmented_control("View", ["First view", "Second view"], default="First view", required=True,
                         label_visibility="collapsed")
    st.radio("A choice", ["one", "two"], horizontal=True)
    st.selectbox("A selection", ["a", "b"])
    st.multiselect("Several", ["a", "b", "c"], default=["a"])
    st.number_input("A count", value=3)
    st.text_input("A name")
    st.checkbox("A check")
    st.file_uploader("A file", type="csv")
    st.subheader("A subsection")
    st.markdown("Body text with **bold** and :small[small text].")
    st.info("Information", icon=":material/info:")
    st.success("Done", icon=":material/check_circle:")
    st.warning("Careful", icon=":material/warning:")
    st.error("Wrong", icon=":material/report:")
    st.metric("A metric", "1.0")
    x = np.linspace(0, 10, 50)
    st.plotly_chart(go.Figure(go.Scatter(x=x, y=np.exp(-x / (1 + epsilon)), name="curve")),
                    alt="A falling curve from 1 to 0.")
    st.dataframe(pd.DataFrame({"a": [1, 2], "b": ["x", "y"]}), hide_index=True)
    with st.expander("A closed box"):
        st.markdown("Inside.")
    with st.expander("An open box", expanded=True):
        st.markdown("Inside.")
    left, right = st.columns(2)
    left.button("Release", type="primary")
    right.download_button("Download", "text", "file.txt")


# navigation in sections, as the app's sidebar has it
st.navigation({"Overview": [st.Page(bare, title="Bare", default=True)],
               "More": [st.Page(bare, title="Also bare", url_path="also"),
                        st.Page(bare, title="Bare again", url_path="again")]}).run()
