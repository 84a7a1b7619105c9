"""The figure builders' contract: specs built without Plotly's validation are valid and draw as before.

Every public builder of ``dpcore.reporting.figures`` and ``dpcore.<method>.figures`` returns a ``go.Figure`` made by
``dpcore.reporting.figures.to_figure`` from a plain spec, WITHOUT validation (it was a third to two thirds of each rerun).
(a) Validating the figure again must change nothing: a misspelt property, a named colour scale plotly.py would
expand or a value Plotly coerces fails here. (b) Facts of what each figure draws — traces, legend entries, axis
types, marker lines, labels, hover settings — equal those recorded from the builders before the conversion.
"""

from __future__ import annotations

import inspect

import numpy as np
import plotly.graph_objects as go
import pytest

from dpcore.reporting import figures
from dpcore.reporting import attack_figures, release_figures
from dpcore.fdr import figures as ff
from dpcore.ledger import figures as ledger_figures
from dpcore.regression import figures as rf
from dpcore.sparse import figures as spf
from dpcore.survival import figures as sf
from tests.support.figure_cases import cases, plain

MODULES = {"figures": figures, "regression": rf, "fdr": ff, "survival": sf,
           "sparse": spf, "attack": attack_figures, "release": release_figures, "ledger": ledger_figures}
CASES = cases()


def runs(items) -> str:
    """``["a", "a", "b"]`` as ``"a*2 b"``; an empty item as ``-``."""
    out = []
    for item in items:
        item = item or "-"
        if out and out[-1][0] == item:
            out[-1][1] += 1
        else:
            out.append([item, 1])
    return " ".join(f"{item}*{n}" if n > 1 else item for item, n in out)


def facts(spec: dict) -> dict:
    """What a figure (``to_dict()`` or its JSON) draws, in a few comparable facts."""
    data, layout = spec["data"], spec["layout"]
    shapes = layout.get("shapes", [])
    return dict(
        traces=runs(t.get("type", "scatter") for t in data),
        legend=[t["name"] for t in data if t.get("showlegend", True) and t.get("name")],
        subplots=sorted({(t.get("xaxis", "x"), t.get("yaxis", "y")) for t in data}),
        axes={k: v["type"] for k, v in sorted(layout.items()) if k[1:5] == "axis" and "type" in v},
        vlines=[(s["xref"], s["x0"]) for s in shapes if s.get("yref", "").endswith("domain")],
        hlines=[(s["yref"], s["y0"]) for s in shapes if s.get("xref", "").endswith("domain")],
        labels=[(a["text"], a.get("x"), a.get("xref")) for a in layout.get("annotations", [])],
        hovermode=layout.get("hovermode"),
        hover=runs("skip" if t.get("hoverinfo") == "skip" else "template" if t.get("hovertemplate") else ""
                   for t in data),
    )


def test_every_public_builder_has_a_case():
    builders = {f"{short}.{name}" for short, module in MODULES.items()
                for name, fn in inspect.getmembers(module, inspect.isfunction)
                if fn.__module__ == module.__name__ and not name.startswith("_") and fn is not figures.to_figure
                and inspect.signature(fn).return_annotation in ("go.Figure", go.Figure)}
    covered = {name for name in builders if any(case == name or case.startswith(name + "_") for case in CASES)}
    assert builders and covered == builders


@pytest.mark.parametrize("case", sorted(CASES))
def test_figure_is_valid_plotly(case):
    fig = CASES[case]()
    assert type(fig) is go.Figure
    built = fig.to_dict()
    assert plain(go.Figure(built).to_dict()) == plain(built)  # validation would change nothing


@pytest.mark.parametrize("case", sorted(CASES))
def test_figure_draws_what_it_drew_before(case):
    assert plain(facts(CASES[case]().to_dict())) == plain(BEFORE[case])


def test_a_band_is_one_filled_outline():
    """Upper edge left to right, lower edge back; a step band follows Plotly's "hv" steps; missing points are left
    out (a NaN would break the outline)."""
    spec = figures.new_spec()
    figures.band(spec, [1, 2], [0, 0], [1, 2], name="linear", colour=figures.PRIVATE)
    figures.band(spec, [0, 1, 2], [0.1, 0.2, np.nan], [0.5, 0.6, 0.7], name="step", colour=figures.PRIVATE, step=True)
    linear, step = spec["data"]
    assert linear["fill"] == step["fill"] == "toself" and linear["hoverinfo"] == "skip"
    assert linear["x"].tolist() == [1, 2, 2, 1] and linear["y"].tolist() == [1, 2, 0, 0]
    assert step["x"].tolist() == [0, 1, 1, 1, 1, 0] and step["y"].tolist() == [0.5, 0.5, 0.6, 0.2, 0.1, 0.1]


def test_the_check_can_fail():
    fig = figures.to_figure({"data": [{"type": "heatmap", "z": [[1]], "colorscale": "Blues"}], "layout": {}})
    assert plain(go.Figure(fig.to_dict()).to_dict()) != plain(fig.to_dict())  # plotly.py expands named scales
    with pytest.raises(ValueError):
        go.Figure(figures.to_figure({"data": [{"type": "scatter", "colour": "red"}], "layout": {}}).to_dict())
    moved = CASES["regression.rho_panels"]().to_dict()
    moved["layout"]["shapes"][2]["x0"] = 2.0
    assert facts(moved) != BEFORE["regression.rho_panels"]


#: facts(...) of each case as drawn by the builders before they built specs (go.Figure with validation); since then
#: every band is one filled outline (``dpcore.reporting.figures.band``): one trace, hover skipped, where there were two.
BEFORE = {  # the stream figure: points only for the tested hypotheses, the legend as text (its data
    # from its own seed since the regression panels gained a model; the counts are that stream's); since 2026-12-03
    # nothing after the cutoff counts as tested (a grey strip and a count); and later its y-axis became −ln p on a log
    # scale (the discoveries sat on the bottom edge of a linear axis)
    'fdr.stream_figure': {'axes': {'yaxis': 'log'},
                       'hlines': [],
                       'hover': 'skip template*2 -*3 template*2',
                       'hovermode': 'closest',
                       'labels': [("<span style='color:rgba(158,158,158,0.55)'>●</span> null   <span "
                                   "style='color:rgba(46,125,50,0.55)'>●</span> non-null: the hypotheses tested "
                                   "(candidates)<br><span style='color:rgba(158,158,158,0.6)'>▒▒</span> 10 not candidates (0 "
                                   "non-null): never tested, so not drawn<br><span style='color:rgba(158,158,158,0.6)'>▒▒</span> 276 "
                                   "after the cutoff: not tested, not drawn<br><span style='color:#1f6fd1'>━━</span> noisy threshold "
                                   "A − log α_t − Z_α (rejected if −ln p − Z_t lies above)<br><span style='color:#1f6fd1'>╍╍</span> "
                                   "PAPRIKA level −log α_t (no noise, no shift)   <span style='color:#3b3b3b'>┈┈</span> SAFFRON −log "
                                   "α_t (non-private)<br><span style='color:#2e7d32'>◆</span> true discoveries (10)   <span "
                                   "style='color:#d1495b'>✕</span> false discoveries (0)",
                                   0,
                                   'paper')],
                       'legend': [],
                       'subplots': [('x', 'y')],
                       'traces': 'scatter*8',
                       'vlines': [('x', 24.5), ('x', 24.5)]},  # the cutoff's line and the strip after it
 'fdr.stream_figure_plain': {'axes': {'yaxis': 'log'},
                             'hlines': [],
                             'hover': 'skip template -*2 template',
                             'hovermode': 'closest',
                             'labels': [("<span style='color:rgba(158,158,158,0.55)'>●</span> p-values tested (candidates)   <span "
                                         "style='color:rgba(158,158,158,0.6)'>▒▒</span> 167 not candidates: never tested, so not "
                                         "drawn<br><span style='color:#1f6fd1'>━━</span> noisy threshold A − log α_t − Z_α (rejected if "
                                         "−ln p − Z_t lies above)<br><span style='color:#1f6fd1'>╍╍</span> PAPRIKA level −log α_t (no "
                                         "noise, no shift)   <span style='color:#d1495b'>◆</span> rejections (10)",
                                         0,
                                         'paper')],
                             'legend': [],
                             'subplots': [('x', 'y')],
                             'traces': 'scatter*5',
                             'vlines': []},
 'fdr.frontier_figure': {'axes': {'xaxis': 'category', 'xaxis2': 'log', 'yaxis': 'category', 'yaxis2': 'log'},
                         'hlines': [],
                         'hover': 'template*3 skip*2',
                         'hovermode': 'closest',
                         'labels': [('power of the release path, cutoff c = 40', 0.22, 'paper'),
                                    ('fewest records per test with power ≥ 0.8', 0.78, 'paper')],
                         'legend': ['c = 10 (never on this grid)', 'c = 40', "this page's configuration"],
                         'subplots': [('x', 'y'), ('x2', 'y2')],
                         'traces': 'heatmap scatter*4',
                         'vlines': []},
 'fdr.summary_figure': {'traces': 'bar*2',
                        'legend': [],
                        'subplots': [('x', 'y'), ('x2', 'y2')],
                        'axes': {'yaxis': 'category', 'yaxis2': 'category'},
                        'vlines': [('x', 0.05), ('x', 0.125)],
                        'hlines': [],
                        'labels': [('FDR', 0.235, 'paper'), ('power', 0.765, 'paper'), ('α = 0.05', 0.05, 'x'),
                                   ('α + δT = 0.125', 0.125, 'x')],
                        'hovermode': 'closest',
                        'hover': '-*2'},
 'fdr.summary_figure_nobound': {'traces': 'bar*2',
                                'legend': [],
                                'subplots': [('x', 'y'), ('x2', 'y2')],
                                'axes': {'yaxis': 'category', 'yaxis2': 'category'},
                                'vlines': [('x', 0.05)],
                                'hlines': [],
                                'labels': [('FDR', 0.235, 'paper'), ('power', 0.765, 'paper'),
                                           ('α = 0.05', 0.05, 'x')],
                                'hovermode': 'closest',
                                'hover': '-*2'},
 'fdr.sweep_figure': {'traces': 'scatter*14',
                      'legend': ['SAFFRON', 'SAFFRON AI', 'LORD++', 'alpha-investing', 'PAPRIKA',
                                 "PAPRIKA (authors' code rule)", 'PAPRIKA AI'],
                      'subplots': [('x', 'y'), ('x2', 'y2')],
                      'axes': {},
                      'vlines': [],
                      'hlines': [('y', 0.05), ('y', 0.125)],
                      'labels': [('FDR (mean FDP over runs)', 0.225, 'paper'), ('power', 0.775, 'paper'),
                                 ('target α = 0.05', 1, 'x domain'),
                                 ('PAPRIKA bound α + δT = 0.125', 1, 'x domain')],
                      'hovermode': 'x unified',
                      'hover': '-*14'},
 'fdr.sweep_figure_log': {'traces': 'scatter*4',
                          'legend': ['PAPRIKA', 'SAFFRON'],
                          'subplots': [('x', 'y'), ('x2', 'y2')],
                          'axes': {'xaxis': 'log', 'xaxis2': 'log'},
                          'vlines': [('x', 1.0), ('x2', 1.0)],
                          'hlines': [('y', 0.05)],
                          'labels': [('FDR (mean FDP over runs)', 0.225, 'paper'), ('power', 0.775, 'paper'),
                                     ('target α = 0.05', 1, 'x domain')],
                          'hovermode': 'x unified',
                          'hover': '-*4'},
 'fdr.utility_figure': {'traces': 'scatter*4',
                        'legend': ['PAPRIKA'],
                        'subplots': [('x', 'y'), ('x2', 'y2')],
                        'axes': {'xaxis': 'log', 'xaxis2': 'log'},
                        'vlines': [('x', 1.0), ('x2', 1.0)],
                        'hlines': [('y', 0.05), ('y', 0.125)],
                        'labels': [('FDR vs ε', 0.225, 'paper'), ('power vs ε', 0.775, 'paper'),
                                   ('α = 0.05', 1, 'x domain'), ('α + δT = 0.125', 1, 'x domain')],
                        'hovermode': 'x unified',
                        'hover': 'skip - skip -'},
 'ledger.person_spend_figure': {'traces': 'bar', 'legend': ['persons'], 'subplots': [['x', 'y']], 'axes': {},
                                  'vlines': [['x', 10.0]], 'hlines': [],
                                  'labels': [['per-person cap ε = 10', 10.0, 'x']], 'hovermode': 'closest',
                                  'hover': 'template'},
 'figures.audit_figure': {'traces': 'bar*2',
                          'legend': ['neighbour A', 'neighbour B'],
                          'subplots': [('x', 'y')],
                          'axes': {},
                          'vlines': [('x', 0.3)],
                          'hlines': [],
                          'labels': [('event threshold', 0.3, None)],
                          'hovermode': 'closest',
                          'hover': '-*2'},
 'figures.audit_figure_discrete': {'traces': 'bar*2',
                                   'legend': ['neighbour A', 'neighbour B'],
                                   'subplots': [('x', 'y')],
                                   'axes': {'xaxis': 'category'},
                                   'vlines': [],
                                   'hlines': [],
                                   'labels': [],
                                   'hovermode': 'closest',
                                   'hover': '-*2'},
 'figures.coefficient_figure': {'traces': 'scatter*4',
                                'legend': ['truth θ*', 'DP-IGHT'],
                                'subplots': [('x', 'y')],
                                'axes': {},
                                'vlines': [],
                                'hlines': [('y', 0)],
                                'labels': [],
                                'hovermode': 'closest',
                                'hover': 'skip template skip template'},
 'figures.epsilon_choice_figure': {'traces': 'scatter*2',
                                   'legend': ['95% interval', 'estimate (Monte-Carlo)'],
                                   'subplots': [('x', 'y')],
                                   'axes': {'xaxis': 'log'},
                                   'vlines': [('x', 1.0)],
                                   'hlines': [('y', 0.7)],
                                   'labels': [('target', 1, 'x domain'), ('smallest ε = 1', 0.0, 'x')],
                                   'hovermode': 'x unified',
                                   'hover': 'skip -'},
 'regression.coefficient_bars': {'traces': 'bar*2 scatter',
                                 'legend': ['non-private', 'private (mean over draws, 5–95%)', 'true β'],
                                 'subplots': [('x', 'y')],
                                 'axes': {},
                                 'vlines': [],
                                 'hlines': [],
                                 'labels': [],
                                 'hovermode': 'x unified',
                                 'hover': '-*3'},
 'regression.predicted_vs_observed': {'traces': 'scatter*3',
                                      'legend': ['prediction = observation',
                                                 'non-private (ρ = 0.600)',
                                                 'private preview (ρ = 0.400)'],
                                      'subplots': [('x', 'y')],
                                      'axes': {},
                                      'vlines': [],
                                      'hlines': [],
                                      'labels': [("<span style='color:#3b3b3b'>○</span> non-private (ρ = 0.600)   "
                                                  "<span style='color:#1f6fd1'>●</span> private preview (ρ = 0.400)   "
                                                  "<span style='color:#999'>╌</span> prediction = observation",
                                                  0,
                                                  'paper')],
                                      'hovermode': 'closest',
                                      'hover': 'skip -*2'},
 'regression.rho_draws_histogram': {'traces': 'histogram',
                                    'legend': ['private, 200 noise draws'],
                                    'subplots': [('x', 'y')],
                                    'axes': {},
                                    'vlines': [('x', 0.55), ('x', 0.23901517402936984)],
                                    'hlines': [],
                                    'labels': [('non-private 0.550', 0.55, 'x'),
                                               ('90% of draws', 0.23901517402936984, 'x')],
                                    'hovermode': 'closest',
                                    'hover': '-'},
 'regression.rho_panels': {'traces': 'scatter*24',
                           'legend': [],
                           'subplots': [('x', 'y'), ('x2', 'y2')],
                           'axes': {'xaxis': 'log'},
                           'vlines': [('x', 1.0), ('x2', 200), ('x2', 120.0)],
                           'hlines': [('y', 0), ('y2', 0)],
                           'labels': [('over ε (n = 200 private)', 0.225, 'paper'),
                                      ('over private size (ε = 1)', 0.775, 'paper'),
                                      ("<span style='color:#3b3b3b'>┈┈</span> non-private LR   <span "
                                       "style='color:#1f6fd1'>━━</span> robust private LR   <span "
                                       "style='color:#e69500'>━━</span> private LR (no projection)   <span "
                                       "style='color:#d1495b'>━━</span> output perturbation<br><span "
                                       "style='color:#7b5ea7'>━━</span> functional mechanism   <span "
                                       "style='color:#2e9e6a'>━━</span> AdaSSP",
                                       0,
                                       'paper'),
                                      ('non-private equivalent ≈ 120', 120.0, 'x2')],
                           'hovermode': 'x',
                           'hover': 'skip - skip - skip - skip - skip - skip - skip - skip - skip - skip - skip - skip '
                                    '-'},
 'regression.rho_panels_plain': {'axes': {'xaxis': 'log'},
                                 'hlines': [('y', 0), ('y2', 0)],
                                 'hover': 'skip - skip - skip - skip -',
                                 'hovermode': 'x',
                                 'labels': [('over ε (n = 100 private)', 0.225, 'paper'),
                                            ('over private size (ε = 0.5)', 0.775, 'paper'),
                                            ("<span style='color:#3b3b3b'>┈┈</span> non-private LR   <span style='color:#1f6fd1'>━━</span> "
                                             'robust private LR',
                                             0,
                                             'paper')],
                                 'legend': [],
                                 'subplots': [('x', 'y'), ('x2', 'y2')],
                                 'traces': 'scatter*8',
                                 'vlines': [('x', 0.5), ('x2', 100)]},
 'regression.rho_vs_epsilon': {'traces': 'scatter*12',
                               'legend': ['non-private LR',
                                          'robust private LR',
                                          'private LR (no projection)',
                                          'output perturbation',
                                          'functional mechanism',
                                          'AdaSSP'],
                               'subplots': [('x', 'y')],
                               'axes': {'xaxis': 'log'},
                               'vlines': [('x', 2.0)],
                               'hlines': [('y', 0)],
                               'labels': [('chosen ε = 2', 0.3010299956639812, 'x')],
                               'hovermode': 'x unified',
                               'hover': 'skip - skip - skip - skip - skip - skip -'},
 'regression.rho_vs_size': {'traces': 'scatter*12',
                            'legend': ['non-private LR',
                                       'robust private LR',
                                       'private LR (no projection)',
                                       'output perturbation',
                                       'functional mechanism',
                                       'AdaSSP'],
                            'subplots': [('x', 'y')],
                            'axes': {},
                            'vlines': [('x', 200), ('x', 150.0)],
                            'hlines': [('y', 0)],
                            'labels': [('chosen n = 200', 200, 'x'), ('non-private equivalent ≈ 150', 150.0, 'x')],
                            'hovermode': 'x unified',
                            'hover': 'skip - skip - skip - skip - skip - skip -'},
 'regression.ternary_split': {'traces': 'scatterternary*3',
                              'legend': ['searched splits', 'best split', 'split in use'],
                              'subplots': [('x', 'y')],
                              'axes': {},
                              'vlines': [],
                              'hlines': [],
                              'labels': [],
                              'hovermode': None,
                              'hover': 'template -*2'},
 'regression.tuning_heatmap': {'traces': 'heatmap scatter*2',
                               'legend': ["search's choice", 'pair in use'],
                               'subplots': [('x', 'y')],
                               'axes': {'xaxis': 'category', 'yaxis': 'category'},
                               'vlines': [],
                               'hlines': [],
                               'labels': [],
                               'hovermode': 'closest',
                               'hover': 'template -*2'},
 'sparse.convergence_figure': {'traces': 'scatter*3',
                               'legend': ['teacher: ‖θ_t − θ_T‖', 'student: ‖θ_t − θ_T‖', 'student: ‖θ_t − teacher‖'],
                               'subplots': [('x', 'y')],
                               'axes': {'yaxis': 'log'},
                               'vlines': [],
                               'hlines': [],
                               'labels': [],
                               'hovermode': 'x unified',
                               'hover': '-*3'},
 'sparse.stem_figure': {'traces': 'bar scatter*2',
                        'legend': ['truth θ*', 'DP-IGHT'],
                        'subplots': [('x', 'y')],
                        'axes': {},
                        'vlines': [],
                        'hlines': [],
                        'labels': [],
                        'hovermode': 'closest',
                        'hover': 'skip template*2'},
 'sparse.stem_figure_many': {'traces': 'bar scatter*7',
                             'legend': [f'a longer method name {i}' for i in range(7)],
                             'subplots': [('x', 'y')],
                             'axes': {},
                             'vlines': [],
                             'hlines': [],
                             'labels': [],
                             'hovermode': 'closest',
                             'hover': 'skip template*7'},
 'sparse.utility_figure': {'traces': 'scatter*3',
                           'legend': ['teacher (non-private)', 'knowledge transfer (student)'],
                           'subplots': [('x', 'y')],
                           'axes': {'xaxis': 'log', 'yaxis': 'log'},
                           'vlines': [('x', 2.0)],
                           'hlines': [],
                           'labels': [('chosen ε = 2', 0.3010299956639812, 'x')],
                           'hovermode': 'x unified',
                           'hover': '- skip -'},
 'survival.draws_figure': {'axes': {},
                           'hlines': [],
                           'hover': 'skip*2 -*2',
                           'hovermode': 'x unified',
                           'labels': [("<span style='color:rgba(31,111,209,0.45)'>━━</span> 30 single private draws   <span "
                                       "style='color:rgba(31,111,209,0.22)'>■</span> private: 5–95 % of 200 draws   <span "
                                       "style='color:#1f6fd1'>╍╍</span> private: mean of draws   <span style='color:#3b3b3b'>━━</span> "
                                       'non-private',
                                       0,
                                       'paper')],
                           'legend': ['30 single private draws',
                                      'private: 5–95 % of 200 draws',
                                      'private: mean of draws',
                                      'non-private'],
                           'subplots': [('x', 'y')],
                           'traces': 'scatter*4',
                           'vlines': []},
 'survival.groups_figure': {'traces': 'scatter*4',
                            'legend': ['arm &lt;A&gt; (non-private)', 'arm &lt;A&gt; (private)',
                                       'arm B (non-private)', 'arm B (private)'],
                            'subplots': [('x', 'y')],
                            'axes': {},
                            'vlines': [],
                            'hlines': [],
                            'labels': [],
                            'hovermode': 'x unified',
                            'hover': '-*4'},
 'survival.headline_figure': {'traces': 'scatter*5',
                              'legend': ['private: noise-aware band', 'private: Greenwood interval',
                                         'non-private interval', 'non-private', 'private (one preview draw)'],
                              'subplots': [('x', 'y')],
                              'axes': {},
                              'vlines': [],
                              'hlines': [],
                              'labels': [('pooled', 1, 'paper')],
                              'hovermode': 'x unified',
                              'hover': 'skip*2 -*3'},
 'survival.headline_figure_na': {'traces': 'scatter*2',
                                 'legend': ['private: Greenwood interval', 'private (one preview draw)'],
                                 'subplots': [('x', 'y')],
                                 'axes': {},
                                 'vlines': [],
                                 'hlines': [],
                                 'labels': [],
                                 'hovermode': 'x unified',
                                 'hover': 'skip -'},
 'survival.utility_figure': {'axes': {'xaxis': 'log', 'xaxis2': 'log', 'xaxis3': 'log'},
                             'hlines': [],
                             'hover': 'skip - skip - skip -',
                             'hovermode': 'x',
                             'labels': [('sup-norm error', 0.1366666666666667, 'paper'),
                                        ('integrated abs. error', 0.5, 'paper'),
                                        ('log-rank decision agrees', 0.8633333333333334, 'paper'),
                                        ("<span style='color:rgba(31,111,209,0.18)'>■</span> 5–95 % of draws (log-rank agreement: its 95 "
                                         "% CI)   <span style='color:#1f6fd1'>━●━</span> mean over draws   <span "
                                         "style='color:#d1495b'>╍╍</span> chosen ε = 1",
                                         0,
                                         'paper')],
                             'legend': [],
                             'subplots': [('x', 'y'), ('x2', 'y2'), ('x3', 'y3')],
                             'traces': 'scatter*6',
                             'vlines': [('x', 1.0), ('x2', 1.0), ('x3', 1.0)]},
 'survival.utility_figure_one': {'axes': {'xaxis': 'log', 'xaxis2': 'log'},
                                 'hlines': [],
                                 'hover': 'skip - skip -',
                                 'hovermode': 'x',
                                 'labels': [('sup-norm error', 0.2275, 'paper'),
                                            ('integrated abs. error', 0.7725, 'paper'),
                                            ("<span style='color:rgba(31,111,209,0.18)'>■</span> 5–95 % of draws   <span "
                                             "style='color:#1f6fd1'>━●━</span> mean over draws",
                                             0,
                                             'paper')],
                                 'legend': [],
                                 'subplots': [('x', 'y'), ('x2', 'y2')],
                                 'traces': 'scatter*4',
                                 'vlines': []}}
#: the attacker's-view and release-report figures, recorded from their builders before they became specs
BEFORE.update({'attack.roc_figure': {'traces': 'scatter*6',
                       'legend': ['allowed by (ε = 1)-DP',
                                  'coin flip',
                                  'optimal attacker, 2,000 seeded releases',
                                  'optimal attacker, exact',
                                  'without privacy'],
                       'subplots': [['x', 'y']],
                       'axes': {},
                       'vlines': [],
                       'hlines': [],
                       'labels': [],
                       'hovermode': 'closest',
                       'hover': 'skip template - template - template'},
 'attack.roc_figure_monte_carlo': {'traces': 'scatter*5',
                                   'legend': ['allowed by (ε = 1, δ = 1e-05)-DP',
                                              'coin flip',
                                              'optimal attacker, 2,000 seeded releases',
                                              'without privacy'],
                                   'subplots': [['x', 'y']],
                                   'axes': {},
                                   'vlines': [],
                                   'hlines': [],
                                   'labels': [],
                                   'hovermode': 'closest',
                                   'hover': 'skip template - template*2'},
 'attack.bound_figure': {'traces': 'scatter*4',
                         'legend': ['at most (with privacy)', 'without privacy', 'coin flip'],
                         'subplots': [['x', 'y']],
                         'axes': {'xaxis': 'log'},
                         'vlines': [['x', 1.0]],
                         'hlines': [],
                         'labels': [['chosen ε = 1', 0.0, 'x']],
                         'hovermode': 'closest',
                         'hover': 'template -*2 template'},
 'attack.bound_figure_delta': {'traces': 'scatter*4',
                               'legend': ['at most (with privacy)', 'without privacy', 'coin flip'],
                               'subplots': [['x', 'y']],
                               'axes': {'xaxis': 'log'},
                               'vlines': [['x', 2.5]],
                               'hlines': [],
                               'labels': [['chosen ε = 2.5', 0.397940008672, 'x']],
                               'hovermode': 'closest',
                               'hover': 'template -*2 template'},
 'attack.nonprivate_figure': {'traces': 'scatter*3',
                              'legend': ['release on A (no noise)',
                                         'release on B (no noise)',
                                         'A − B: the last record'],
                              'subplots': [['x', 'y'], ['x2', 'y2']],
                              'axes': {},
                              'vlines': [],
                              'hlines': [],
                              'labels': [],
                              'hovermode': 'x unified',
                              'hover': '-*3'},
 'release.survival_release_figure': {'traces': 'scatter*4',
                                     'legend': ['a: 95 % interval (noise + sampling)',
                                                'a: DP Kaplan–Meier',
                                                '&lt;b&gt;: 95 % interval (noise + sampling)',
                                                '&lt;b&gt;: DP Kaplan–Meier'],
                                     'subplots': [['x', 'y']],
                                     'axes': {},
                                     'vlines': [],
                                     'hlines': [],
                                     'labels': [],
                                     'hovermode': 'x unified',
                                     'hover': 'skip - skip -'},
 'release.survival_release_figure_faded': {
     'traces': 'scatter*5',
     'legend': ['arm = a: 95 % interval (noise + sampling)', 'arm = a: DP Kaplan–Meier',
                'arm = a: few at risk (noise-dominated)', 'arm = &lt;b&gt;: 95 % interval (noise + sampling)',
                'arm = &lt;b&gt;: DP Kaplan–Meier'],
     'subplots': [['x', 'y']], 'axes': {}, 'vlines': [], 'hlines': [],
     'labels': [['dotted: fewer than 17 people at risk (noisy count): noise, not signal', 1, 'paper']],
     'hovermode': 'x unified', 'hover': 'skip -*2 skip -'},
 'release.fdr_release_figure': {'traces': 'scatter*2',
                                'legend': ['test level α_t', 'discoveries (2)'],
                                'subplots': [['x', 'y']],
                                'axes': {'yaxis': 'log'},
                                'vlines': [],
                                'hlines': [],
                                'labels': [],
                                'hovermode': 'x unified',
                                'hover': '-*2'}})
#: the headline without its legend draws the same traces (the page names them in a caption below the chart)
BEFORE["survival.headline_figure_nolegend"] = BEFORE["survival.headline_figure"]
#: the released curve read between edges by the within-bin rule, beside lifelines and the binned reference
BEFORE["survival.read_figure"] = {'axes': {},
     'hlines': [],
     'hover': 'skip -*6',
     'hovermode': 'x unified',
     'labels': [['Number at risk', 0, 'paper'],
                ['noisy', 0, 'paper'],
                ['200', 0.0, 'x'],
                ['176', 3.2, 'x'],
                ['151', 6.4, 'x'],
                ['127', 9.6, 'x'],
                ['102', 12.8, 'x'],
                ['78', 16.0, 'x'],
                ['54', 19.2, 'x'],
                ['29', 22.4, 'x'],
                ['dotted: fewer than 30 people at risk (noisy count): noise, not signal', 1, 'paper']],
     'legend': ['private: 95 % band (noise and sampling)',
                'non-private: lifelines on the exact times',
                'non-private on the grid (binning alone)',
                'private (one preview draw)',
                'private (read between edges)'],
     'subplots': [['x', 'y']],
     'traces': 'scatter*7',
     'vlines': []}
#: since no figure tells its series apart by colour alone: the text legends name each series with its marker
#: shape or line style (○ null, ● non-null; a shape per regression model), and the survival headline without
#: Plotly's legend draws one in text; the palette's orange and cyan darkened to 3:1 against white
BEFORE.update({'fdr.stream_figure': {'axes': {'yaxis': 'log'},
                       'hlines': [],
                       'hover': 'skip template*2 -*3 template*2',
                       'hovermode': 'closest',
                       'labels': [("<span style='color:rgba(158,158,158,0.55)'>○</span> no real effect   <span "
                                   "style='color:rgba(46,125,50,0.55)'>●</span> real effect: the hypotheses tested<br><span "
                                   "style='color:rgba(158,158,158,0.6)'>▒▒</span> 10 not candidates (0 non-null): never tested, so "
                                   "not drawn<br><span style='color:rgba(158,158,158,0.6)'>▒▒</span> 276 after the cutoff: not "
                                   "tested, not drawn   <span style='color:#1f6fd1'>━━</span> private threshold (PAPRIKA, noisy): a "
                                   "discovery above it<br><span style='color:#1f6fd1'>╍╍</span> its level without noise or shift   "
                                   "<span style='color:#3b3b3b'>┈┈</span> non-private threshold (SAFFRON)   <span "
                                   "style='color:#2e7d32'>◆</span> true discoveries (10)<br><span style='color:#d1495b'>✕</span> "
                                   'false discoveries (0)',
                                   0,
                                   'paper')],
                       'legend': [],
                       'subplots': [['x', 'y']],
                       'traces': 'scatter*8',
                       'vlines': [['x', 24.5], ['x', 24.5]]},
 'fdr.stream_figure_plain': {'axes': {'yaxis': 'log'},
                             'hlines': [],
                             'hover': 'skip template -*2 template',
                             'hovermode': 'closest',
                             'labels': [("<span style='color:rgba(158,158,158,0.55)'>○</span> p-values tested (candidates)   <span "
                                         "style='color:rgba(158,158,158,0.6)'>▒▒</span> 167 not candidates: never tested, so not "
                                         "drawn<br><span style='color:#1f6fd1'>━━</span> private threshold (PAPRIKA, noisy): a discovery "
                                         "above it   <span style='color:#1f6fd1'>╍╍</span> its level without noise or shift<br><span "
                                         "style='color:#d1495b'>◆</span> rejections (10)",
                                         0,
                                         'paper')],
                             'legend': [],
                             'subplots': [['x', 'y']],
                             'traces': 'scatter*5',
                             'vlines': []},
 'regression.rho_panels': {'axes': {'xaxis': 'log'},
                           'hlines': [['y', 0], ['y2', 0]],
                           'hover': 'skip - skip - skip - skip - skip - skip - skip - skip - skip - skip - skip - '
                                    'skip -',
                           'hovermode': 'x',
                           'labels': [['over ε (n = 200 private)', 0.225, 'paper'],
                                      ['over private size (ε = 1)', 0.775, 'paper'],
                                      ["<span style='color:#3b3b3b'>┈●</span> non-private LR   <span "
                                       "style='color:#1f6fd1'>━■</span> robust private LR   <span "
                                       "style='color:#b36b00'>━◆</span> private LR (no projection)   <span "
                                       "style='color:#d1495b'>━▲</span> output perturbation<br><span "
                                       "style='color:#7b5ea7'>━✕</span> functional mechanism   <span "
                                       "style='color:#2e9e6a'>━✚</span> AdaSSP",
                                       0,
                                       'paper'],
                                      ['non-private equivalent ≈ 120', 120.0, 'x2']],
                           'legend': [],
                           'subplots': [['x', 'y'], ['x2', 'y2']],
                           'traces': 'scatter*24',
                           'vlines': [['x', 1.0], ['x2', 200], ['x2', 120.0]]},
 'regression.rho_panels_plain': {'axes': {'xaxis': 'log'},
                                 'hlines': [['y', 0], ['y2', 0]],
                                 'hover': 'skip - skip - skip - skip -',
                                 'hovermode': 'x',
                                 'labels': [['over ε (n = 100 private)', 0.225, 'paper'],
                                            ['over private size (ε = 0.5)', 0.775, 'paper'],
                                            ["<span style='color:#3b3b3b'>┈●</span> non-private LR   <span "
                                             "style='color:#1f6fd1'>━■</span> robust private LR",
                                             0,
                                             'paper']],
                                 'legend': [],
                                 'subplots': [['x', 'y'], ['x2', 'y2']],
                                 'traces': 'scatter*8',
                                 'vlines': [['x', 0.5], ['x2', 100]]},
 'survival.headline_figure_nolegend': {'axes': {},
                                       'hlines': [],
                                       'hover': 'skip*2 -*3',
                                       'hovermode': 'x unified',
                                       'labels': [["<span style='color:#1f6fd1'>━━</span> private (one preview "
                                                   "draw)   <span style='color:#3b3b3b'>╍╍</span> non-private   "
                                                   "<span style='color:#3b3b3b'>┈┈</span> non-private interval",
                                                   0,
                                                   'paper'],
                                                  ['pooled', 1, 'paper']],
                                       'legend': ['private: noise-aware band',
                                                  'private: Greenwood interval',
                                                  'non-private interval',
                                                  'non-private',
                                                  'private (one preview draw)'],
                                       'subplots': [['x', 'y']],
                                       'traces': 'scatter*5',
                                       'vlines': []}})

#: the sparse page's first figure: the release against the non-private model and the truth, with a Plotly legend
BEFORE["sparse.release_stem_figure"] = {'axes': {},
 'hlines': [],
 'hover': 'skip template*3',
 'hovermode': 'closest',
 'labels': [],
 'legend': ['true coefficients (simulated)', 'non-private model', 'private release (peeling + private fit)'],
 'subplots': [('x', 'y')],
 'traces': 'bar scatter*3',
 'vlines': []}

BEFORE.update({'survival.forest_figure': {'axes': {'xaxis': 'log'},
                            'hlines': [],
                            'hover': 'template*2',
                            'hovermode': 'closest',
                            'labels': [],
                            'legend': ['private (ε = 2): sampling + privacy', 'lifelines CoxPHFitter (non-private)'],
                            'subplots': [['x', 'y']],
                            'traces': 'scatter*2',
                            'vlines': [['x', 1.0]]},
 'survival.forest_figure_released': {'axes': {'xaxis': 'log'},
                                     'hlines': [],
                                     'hover': 'template',
                                     'hovermode': 'closest',
                                     'labels': [],
                                     'legend': ['private: sampling + privacy'],
                                     'subplots': [['x', 'y']],
                                     'traces': 'scatter',
                                     'vlines': [['x', 1.0]]},
 'survival.hazard_ratio_utility_figure': {'axes': {'xaxis': 'log', 'xaxis2': 'log'},
                                          'hlines': [],
                                          'hover': '-*3',
                                          'hovermode': 'closest',
                                          'labels': [["|Δ log HR| against lifelines' Cox", 0.22, 'paper'],
                                                     ['share of releases significant at 5 %', 0.78, 'paper']],
                                          'legend': ['median |Δ log HR|',
                                                     '90th percentile',
                                                     'significant (honest interval)'],
                                          'subplots': [['x', 'y'], ['x2', 'y2']],
                                          'traces': 'scatter*3',
                                          'vlines': [['x', 2.0], ['x2', 2.0]]},
 'survival.per_interval_figure': {'axes': {'yaxis': 'log'},
                                  'hlines': [],
                                  'hover': '-',
                                  'hovermode': 'closest',
                                  'labels': [],
                                  'legend': ['1'],
                                  'subplots': [['x', 'y']],
                                  'traces': 'scatter',
                                  'vlines': []}})
