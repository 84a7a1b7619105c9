"""Baseline for bench_pages.py: the bare page the design compares slider latency against.

One slider and one Plotly chart, nothing else (design.md: "a slider move on any page should be back to
idle within a few times what a bare page with one slider and one Plotly chart takes").
"""

import numpy as np
import plotly.graph_objects as go
import streamlit as st

epsilon = st.select_slider("Privacy budget ε", options=[0.5, 1.0, 2.0, 3.0, 5.0], value=1.0)
x = np.linspace(0, 10, 200)
st.plotly_chart(go.Figure(go.Scatter(x=x, y=np.exp(-x / (1 + epsilon)))))
