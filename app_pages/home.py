"""Home: what the dashboard compares, what ε means, preview vs release."""

import streamlit as st

from dpcore.reporting.attack import bound_sentence, max_accuracy, percent
from dpcore.reporting.attack_figures import bound_figure
from ui import epsilon_slider, live_chart, live_fragment, page_header

page_header(
    "Privacy–utility trade-offs for clinical statistics",
    "Differentially private (DP) survival curves, drug-response regression, sparse models and online testing — "
    "each compared live with its non-private counterpart.",
)

st.header("Start here")
st.caption("On every page: drag ε and watch the private result against the non-private one.")
links = st.columns(4)
links[0].page_link("app_pages/survival.py", label="Survival curves", icon=":material/monitoring:")
links[1].page_link("app_pages/regression.py", label="Drug sensitivity", icon=":material/medication:")
links[2].page_link("app_pages/sparse.py", label="Sparse learning", icon=":material/scatter_plot:")
links[3].page_link("app_pages/fdr.py", label="Online FDR", icon=":material/rule:")

st.header("What ε means for one patient")
explain_col, figure_col = st.columns([1, 1.3])
with explain_col:
    st.markdown(
        f"""
Picture the strongest attacker: they know **every patient in the data set but one**, and they see the release.
They want one fact about the last patient — say, whether that patient died at month 3 or was censored at
month 30 — and guess from what was published.

At ε = 0.1 the best guess is right at most {percent(float(max_accuracy(0.1)))} of the time; at ε = 5, at most
{percent(float(max_accuracy(5.0)))}. The bound is (e^ε + δ)/(1 + e^ε) and holds for any attacker, any question and
any background knowledge. The attacker's view on the audit page shows the attack on real neighbouring data sets:
exact without privacy, and held inside this bound with it.
"""
    )
    st.page_link("app_pages/audit.py", label="Open the attacker's view", icon=":material/visibility:",
                 query_params={"method": "survival", "atk_pair": "data"})


@live_fragment
def _bound_at_epsilon() -> None:
    """The ε slider, the bound in words and its chart: a move of ε redraws these alone."""
    epsilon = epsilon_slider("Privacy budget ε", key="eps", default=1.0, min_value=0.05, max_value=20.0)
    st.markdown(bound_sentence(epsilon))
    live_chart(bound_figure(epsilon), key="home_bound")


with figure_col:
    _bound_at_epsilon()

left, right = st.columns(2)
with left:
    st.header("For clinicians and data custodians")
    st.markdown(
        """
A DP release adds carefully calibrated random noise so that **no single patient's record can be inferred**
from what is published, whatever else an attacker knows.

**ε (epsilon)** is the privacy budget. With ε = 1, anything published changes the odds of any conclusion
about one patient by at most a factor e¹ ≈ 2.7; with ε = 0.1, by at most 1.1 — see *What ε means for one
patient* above. Smaller ε means stronger privacy and noisier results. Every release spends budget, and budgets
add up: two releases at ε = 1 on the same data cost ε = 2.

**δ** (when shown) is a small probability with which that guarantee may fail; keep it far below 1/n.
"""
    )
with right:
    st.header("For students")
    st.markdown(
        """
Each method has the same three stages, mirroring its privacy proof:

1. a **statistic** of the records with bounded *sensitivity* (how much one person can change it);
2. a **mechanism** that adds noise scaled to sensitivity / ε (Laplace, discrete Laplace or Gaussian);
3. **post-processing** of the noisy statistic into curves and numbers, which costs no extra privacy.

Running the same post-processing on the exact statistic gives the non-private reference, so the
difference you see on each page is exactly the price of privacy.
"""
    )

st.header("Preview versus release")
st.markdown(
    """
* **Preview** — what the sliders drive. Noise is simulated many times with a seeded generator so you can see
  the *typical* error at a given ε (bands over many draws, not one lucky draw). Nothing computed in a preview
  leaves your browser session and nothing is charged.
* **Release** — an explicit button on each page, confirmed once. It charges the deployment's privacy ledger
  (shared by every session, capped per data set), draws fresh noise once from [OpenDP](https://opendp.org)'s
  vetted samplers, and offers a download of the DP values only, with a privacy report.
"""
)

st.header("What each page compares")
st.markdown(
    """
| page | private result | compared with |
| --- | --- | --- |
| **Survival curves** | DP Kaplan–Meier, Nelson–Aalen, cumulative incidence, log-rank (Gondara & Wang) | lifelines on the same data |
| **Drug sensitivity** | AdaSSP (Wang 2018) released by default; the paper's robust private Bayesian linear regression (Honkela et al.) one click away | non-private regression and private baselines |
| **Sparse learning** | peeling + private fit released by default; knowledge transfer with private support (Wang & Gu) one click away | the non-private teacher, the paper's knowledge transfer, DP-IGHT, Frank–Wolfe, two-stage |
| **Online FDR** | PAPRIKA (Zhang, Kamath & Cummings) | SAFFRON, LORD++, alpha-investing |
| **Privacy audit** | an empirical lower bound on ε from many runs | the claimed ε (and a deliberately broken mechanism) |
| **Attacker's view** (on the audit page) | the best attacker's guesses about one patient, over many releases | what (ε, δ)-DP allows, a coin flip, and the attack without privacy |
"""
)
st.info(
    "Uploaded files stay in this browser session's memory: they are never written to disk, logged, or shared "
    "with other sessions. Turn on **Teaching mode** in the sidebar for step-by-step explanations.",
    icon=":material/lock:",
)
