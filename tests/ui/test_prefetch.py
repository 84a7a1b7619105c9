"""ui.prefetch: head starts run their calls in order, stop when abandoned, and survive a failing call."""

from __future__ import annotations

import threading

from ui.prefetch import run_ahead, steps_around


def test_steps_around_are_the_neighbouring_options():
    assert steps_around([0.5, 1.0, 2.0], 1.0) == [0.5, 2.0]
    assert steps_around([0.5, 1.0, 2.0], 0.5) == [1.0]
    assert steps_around([0.5, 1.0, 2.0], 3.0) == []


def test_calls_run_in_order_and_a_failing_call_ends_the_head_start():
    done = []

    def fail():
        raise RuntimeError("no")

    run_ahead([(0.0, lambda: done.append(1)), (0.0, lambda: done.append(2)), (0.0, fail),
               (0.0, lambda: done.append(3))], token=[True])
    assert done == [1, 2]


def test_an_abandoned_head_start_stops_before_its_next_call():
    token, done, started = [True], [], threading.Event()

    def first():
        started.set()
        done.append("first")

    worker = threading.Thread(target=run_ahead, args=([(0.0, first), (0.5, lambda: done.append("second"))],),
                              kwargs={"token": token})
    worker.start()
    assert started.wait(5)
    token[0] = False  # a newer run of the session
    worker.join(5)
    assert done == ["first"]
