import re

import jax
import jax.numpy as jnp
import numpy as np
import optax
import pytest

from repro.core import crossval, forms, metrics, model
from repro.evaluate import scoring
from repro.evaluate.scoring import learned_pair_scores
from repro.core.prepared import prepare
from repro.core.train import TrainConfig, batch_loss, make_grid_trainer, make_step, make_trainer, next_rate, train

import compilecache
from synthetic import signal_pairs


def schedule(losses, config=TrainConfig()):
    """Drive Algorithm 1's rule with a scripted sequence of mean epoch losses."""
    eta, l_old, etas = config.eta, np.inf, []
    for epoch, l_mean in enumerate(losses):
        etas.append(eta)
        eta, stop = next_rate(jnp.float32(eta), jnp.float32(l_mean), jnp.float32(l_old), config)
        eta = float(eta)
        if bool(stop):
            return epoch + 1, etas
        l_old = l_mean
    return len(losses), etas


def test_learning_rate_drop_and_stop_on_scripted_losses():
    # falls, falls, rises (drop to 0.001), improves by 0.01, improves by 0.0002 (stop)
    epochs, etas = schedule([1.0, 0.9, 0.95, 0.94, 0.9398, 0.5, 0.4])
    assert epochs == 5
    assert etas == pytest.approx([0.01, 0.01, 0.01, 0.001, 0.001])


def test_no_stop_before_the_drop_and_no_stop_in_the_drop_epoch():
    # tiny improvements at the high rate never stop training
    epochs, etas = schedule([1.0, 0.9999, 0.9998, 0.9997])
    assert epochs == 4 and etas == pytest.approx([0.01] * 4)
    # the epoch whose loss rises drops the rate but does not stop
    epochs, etas = schedule([1.0, 1.1, 1.0, 0.9999])
    assert epochs == 4 and etas == pytest.approx([0.01, 0.01, 0.001, 0.001])


def _split(w, table, pairs):
    s = learned_pair_scores(w, table, pairs)
    return metrics.split_error(s, pairs.label, s, pairs.label)[0]


def _classes(labels):
    """(related, unrelated) couple indices of ``labels``, int32 on the device: Algorithm 1's inputs."""
    return tuple(jnp.asarray(np.flatnonzero(np.asarray(labels) == c).astype(np.int32)) for c in (1, 0))


@pytest.fixture(scope="module")
def synthetic():
    return signal_pairs(n_pairs=2000, width=10, informative=3, seed=0)


@pytest.mark.parametrize("loss", ["median", "contrastive"])
def test_known_answer_training(synthetic, loss):
    table, pairs = synthetic
    # the contrastive loss is unbounded below and learns slowly at eta = 0.01
    epochs = 60 if loss == "median" else 200
    result = train(prepare(table, pairs), TrainConfig(loss=loss, max_epochs=epochs), 40.0 if loss == "median" else None,
                   seed=0)
    w = np.abs(result.weights)
    # the weights concentrate on the three informative rank positions
    assert w[:3].min() > 2 * w[3:].max()
    # and the split error falls well below that of the initial (uniform) weights
    before = _split(np.full(10, 0.5), table, pairs)
    after = _split(result.weights, table, pairs)
    assert after < before - 0.1
    assert result.history.shape == (result.epochs,) and np.all(np.isfinite(result.history))


def test_training_stops_by_the_rule(synthetic):
    table, pairs = synthetic
    result = train(prepare(table, pairs), TrainConfig(max_epochs=200), 40.0, seed=0)
    assert result.epochs < 200
    h, etas = result.history, result.etas
    drop = int(np.argmax(etas < 0.01))  # first epoch at the low rate
    assert etas[0] == pytest.approx(0.01) and etas[-1] == pytest.approx(0.001)
    assert h[drop - 1] > h[drop - 2]  # the rise that triggered the drop
    assert h[-2] - h[-1] < 5e-4  # the stop condition
    assert np.all(h[drop:-1][:-1] - h[drop:-1][1:] >= 5e-4)  # no earlier stop


def test_variable_length_training(synthetic):
    table, pairs = signal_pairs(n_pairs=1000, width=12, informative=3, seed=1, variable=True)
    result = train(prepare(table, pairs, 8), TrainConfig(max_epochs=40), 40.0, seed=1)
    assert result.weights.shape == (8,)
    assert _split(result.weights, table, pairs) < _split(np.full(8, 0.5), table, pairs) - 0.05


def test_same_seed_same_weights(synthetic):
    table, pairs = synthetic
    cfg, prepared = TrainConfig(max_epochs=5), prepare(table, pairs)
    a = train(prepared, cfg, 160.0, seed=7)
    b = train(prepared, cfg, 160.0, seed=7)
    c = train(prepared, cfg, 160.0, seed=8)
    np.testing.assert_array_equal(a.weights, b.weights)
    np.testing.assert_array_equal(a.history, b.history)
    assert not np.array_equal(a.weights, c.weights)


def test_train_bad_input(synthetic):
    table, pairs = synthetic
    prepared = prepare(table, pairs)
    with pytest.raises(ValueError, match="loss must be"):
        train(prepared, TrainConfig(loss="hinge"), 40.0)
    with pytest.raises(ValueError, match="kappa must be a positive number for the median loss, got None"):
        train(prepared)
    with pytest.raises(ValueError, match="the contrastive loss has no kappa"):
        train(prepared, TrainConfig(loss="contrastive"), 40.0)
    with pytest.raises(ValueError, match="a batch needs 50 of each"):
        train(prepare(table, pairs.take(np.arange(60))), kappa=40.0)
    bad = pairs._replace(len_a=pairs.len_a.copy())
    bad.len_a[3] = 0
    with pytest.raises(ValueError, match="a length is 0"):
        prepare(table, bad)
    nan_table = table.copy()
    nan_table[5, 0] = np.nan
    with pytest.raises(ValueError, match="table: contains NaN"):
        prepare(nan_table, pairs)
    with pytest.raises(ValueError, match="word indices"):
        prepare(table[:50], pairs)


def test_fold_indices_partition():
    labels = np.array([1] * 23 + [0] * 27)
    tr_rel, tr_unrel, held = crossval.fold_indices(labels, 5, seed=0)
    assert tr_rel.shape == (5, 16) and tr_unrel.shape == (5, 20) and held.shape == (5, 9)
    for f in range(5):
        assert not set(held[f]) & set(tr_rel[f]) and not set(held[f]) & set(tr_unrel[f])
        assert np.all(labels[tr_rel[f]] == 1) and np.all(labels[tr_unrel[f]] == 0)
    assert len(set(held.ravel())) == 45  # the held-out folds are disjoint


def test_select_kappa_runs_grid_and_folds_in_one_call(synthetic):
    table, pairs = synthetic
    cv = crossval.select_kappa(prepare(table, pairs), grid=(5.0, 40.0, 160.0), folds=5,
                               config=TrainConfig(max_epochs=15), seed=0)
    k = cv.grid.size  # the grid, and any kappa beyond its edges
    assert cv.errors.shape == (k, 5) and cv.epochs.shape == (k, 5) and cv.weights.shape[:2] == (k, 5)
    assert {5.0, 40.0, 160.0} <= set(cv.grid.tolist()) and k == 3 + len(cv.extended)
    assert crossval.beyond_edge(cv.grid, cv.kappa, (5.0, 40.0, 160.0)) is None  # interior, or at a limit
    mean = cv.errors.mean(axis=1)
    assert mean[list(cv.grid).index(cv.kappa)] == mean.min()
    assert np.all((cv.errors >= 0) & (cv.errors <= 0.5))
    assert cv.errors.mean() < 0.3
    # one (kappa, fold) of the batched run equals the same training run alone
    tr_rel, tr_unrel, _ = crossval.fold_indices(pairs.label, 5, seed=0)
    cfg = TrainConfig(max_epochs=15)
    run = make_trainer(cfg, pairs.width)
    keys = jax.random.split(jax.random.PRNGKey(0), 5)  # one per fold, shared by the kappas
    i, f = list(cv.grid).index(40.0), 3
    w, _, _, epochs = run(prepare(table, pairs).form, jnp.asarray(tr_rel[f]), jnp.asarray(tr_unrel[f]),
                          jnp.float32(40.0), keys[f])
    assert int(epochs) == cv.epochs[i, f]
    np.testing.assert_allclose(np.asarray(w), cv.weights[i, f], rtol=1e-4, atol=1e-6)


def test_beyond_edge_by_hand():
    grid = (10.0, 40.0, 160.0)
    assert crossval.beyond_edge(grid, 40.0, grid) is None  # interior
    assert crossval.beyond_edge(grid, 10.0, grid) == 2.5  # a grid step (x4) below
    assert crossval.beyond_edge((2.5,) + grid, 2.5, grid) is None  # 0.625: under the floor of 1
    assert crossval.beyond_edge(grid, 160.0, grid) == 640.0
    assert crossval.beyond_edge(grid + (640.0,), 640.0, grid) == 2560.0  # a second one above
    assert crossval.beyond_edge(grid + (640.0, 2560.0), 2560.0, grid) is None  # EXTEND = 2 a side
    assert crossval.beyond_edge(grid, 160.0, grid, extend=0) is None
    assert crossval.beyond_edge((5120.0, 10240.0), 10240.0, (5120.0, 10240.0)) == 20480.0
    assert crossval.beyond_edge((10240.0, 20480.0), 20480.0, (10240.0, 20480.0)) is None  # over the ceiling
    assert crossval.beyond_edge((40.0,), 40.0, (40.0,)) is None  # one kappa: no step to take


def test_a_winner_at_the_grid_s_edge_is_searched_beyond_it(synthetic):
    """A grid whose winner sits at an edge: the search adds kappas beyond it, one grid step at a
    time, until the winner is interior or a limit is reached, and records them (not with extend=0)."""
    table, pairs = synthetic
    prepared, cfg = prepare(table, pairs), TrainConfig(max_epochs=6)
    grid = (640.0, 1280.0)
    plain = crossval.select_kappa(prepared, grid=grid, config=cfg, extend=0)
    assert plain.extended == () and plain.grid.tolist() == list(grid)
    cv = crossval.select_kappa(prepared, grid=grid, config=cfg)
    assert len(cv.extended) >= 1 and cv.grid.tolist() == sorted(set(grid) | set(cv.extended))
    assert cv.extended[0] in (320.0, 2560.0)  # one step beyond the edge the grid's winner sat at
    assert crossval.beyond_edge(cv.grid, cv.kappa, grid) is None
    i = [cv.grid.tolist().index(k) for k in grid]  # the grid's own runs are the same as without the extension
    np.testing.assert_array_equal(cv.errors[i], plain.errors)
    np.testing.assert_array_equal(cv.epochs[i], plain.epochs)


def test_the_grid_trainer_runs_each_kappa_as_its_own_run(synthetic):
    """make_grid_trainer: the K runs on shared batches are the K runs of make_trainer with the
    same key, to float32 rounding; a run that stops early keeps its state (its epochs, its
    weights, NaN history past its last epoch) while the others go on."""
    table, pairs = synthetic
    cfg = TrainConfig(max_epochs=30)
    data = prepare(table, pairs).form
    rel, unrel = _classes(pairs.label)
    kappas, key = (5.0, 40.0, 640.0), jax.random.PRNGKey(7)
    w, hist, etas, epochs = make_grid_trainer(cfg, pairs.width)(data, rel, unrel, jnp.asarray(kappas, jnp.float32), key)
    assert w.shape == (3, pairs.width) and hist.shape == etas.shape == (3, 30) and epochs.shape == (3,)
    single = [make_trainer(cfg, pairs.width)(data, rel, unrel, jnp.float32(k), key) for k in kappas]
    assert [int(e) for e in epochs] == [int(r[3]) for r in single]
    assert len(set(int(e) for e in epochs)) > 1  # the runs stop at different epochs
    for i, (w1, h1, e1, n1) in enumerate(single):
        np.testing.assert_allclose(np.asarray(w[i]), np.asarray(w1), rtol=1e-4, atol=1e-6)
        np.testing.assert_allclose(np.asarray(hist[i]), np.asarray(h1), rtol=1e-4, atol=1e-6)  # NaN where it is
        np.testing.assert_array_equal(np.asarray(etas[i]), np.asarray(e1))
        assert np.isnan(np.asarray(hist[i])[int(n1):]).all() and not np.isnan(np.asarray(hist[i])[:int(n1)]).any()


def test_ties_go_to_the_smallest_kappa_in_any_grid_order():
    assert crossval.best_kappa([320.0, 10.0, 40.0, 20.0], [0.2, 0.2, 0.3, 0.2]) == 10.0
    assert crossval.best_kappa([40.0, 5120.0, 20.0], [0.1, 0.1, 0.3]) == 40.0
    assert crossval.best_kappa([5.0, 80.0], [0.4, 0.1]) == 80.0


def test_select_kappa_refuses_folds_smaller_than_a_batch(synthetic):
    table, pairs = synthetic
    with pytest.raises(ValueError, match="couples per training fold; a batch needs 50"):
        crossval.select_kappa(prepare(table, pairs.take(np.arange(100))), grid=(10.0,), folds=5)
    with pytest.raises(ValueError, match="the 'contrastive' loss has none to select"):
        crossval.select_kappa(prepare(table, pairs), grid=(10.0,), config=TrainConfig(loss="contrastive"))


FORMS = ["gather", "gram", "quadratic"]
SCATTER = re.compile(r"stablehlo\.scatter|\bscatter\(")  # the op, in StableHLO and in compiled HLO


def _scatters(lowered):
    return SCATTER.findall(lowered.as_text()) + SCATTER.findall(lowered.compile().as_text())


def test_the_scatter_check_sees_a_scatter():
    """The gradient of a gather of w (the old interpolation) is a scatter-add, and is caught."""
    f = jax.grad(lambda w, i: jnp.sum(w[i] ** 2))
    assert _scatters(jax.jit(f).lower(jnp.ones(5), jnp.array([0, 2, 2])))


def _step_args(table, pairs, form, variable_n_max=None):
    data = prepare(table, pairs, variable_n_max, form=form).form
    n_max = variable_n_max or pairs.width
    w = jnp.full((n_max,), 0.5, jnp.float32)
    opt_state = optax.inject_hyperparams(optax.sgd)(learning_rate=0.01).init(w)
    return w, opt_state, data, jnp.arange(100, dtype=jnp.int32), jnp.float32(40.0)


@pytest.mark.parametrize("loss", ["median", "contrastive"])
@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("variable", [False, True])
def test_training_step_holds_no_scatter(loss, form, variable):
    """One SGD step (value_and_grad of the batch loss plus the update) lowers without any
    scatter, so it is deterministic on GPUs (XLA's GPU scatter-add is not)."""
    table, pairs = signal_pairs(n_pairs=200, width=10, seed=0, variable=variable)
    step = make_step(TrainConfig(loss=loss))
    args = _step_args(table, pairs, form, 8 if variable else None)
    lowered = jax.jit(step).lower(*args)
    assert not _scatters(lowered)
    # the step does what it says: the new weights are w - eta * grad
    w1, _, loss_value = jax.jit(step)(*args)
    # the gradient as one compiled program (op by op, it compiled some fifty programs per case)
    _, g = jax.jit(jax.value_and_grad(batch_loss), static_argnums=(3, 4))(args[0], args[2], args[3], 50,
                                                                        TrainConfig(loss=loss), args[4])
    np.testing.assert_allclose(np.asarray(w1), np.asarray(args[0] - 0.01 * g), rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize("form", FORMS)
def test_whole_training_program_holds_no_scatter(synthetic, form):
    """Algorithm 1's whole program, alone (on variable-length couples: the weights interpolated) and as
    the kappa search's grid (fixed length) has no scatter. Each on the data and settings of another
    test (the same-seed bits; the grid trainer), so that the two share one compiled program."""
    table, pairs = signal_pairs(n_pairs=600, width=10, seed=4, variable=True)  # as the same-seed test's
    prepared = prepare(table, pairs, 7, form=form)
    lowered = make_trainer(TrainConfig(max_epochs=4), 7).lower(prepared.form, *_classes(prepared.labels),
                                                               jnp.float32(40.0), jax.random.PRNGKey(0))
    assert not _scatters(lowered)
    table, pairs = synthetic  # as the grid trainer's test
    grid = make_grid_trainer(TrainConfig(max_epochs=30), pairs.width).lower(
        prepare(table, pairs, form=form).form, *_classes(pairs.label), jnp.ones(3, jnp.float32), jax.random.PRNGKey(0))
    assert not _scatters(grid)  # the kappa search's program too


def _dot_lines(text):
    return [line for line in text.splitlines() if "dot_general" in line]


@pytest.mark.parametrize("form", FORMS)
def test_every_contraction_asks_for_the_highest_precision(form):
    table, pairs = signal_pairs(n_pairs=200, width=10, seed=0, variable=True)
    args = _step_args(table, pairs, form, 8)
    texts = [jax.jit(make_step(TrainConfig(loss=loss))).lower(*args).as_text() for loss in ("median", "contrastive")]
    w, table_j = jnp.full((8,), 0.5, jnp.float32), jnp.asarray(table)
    a, la = jnp.asarray(pairs.a), jnp.asarray(pairs.len_a)
    texts.append(jax.jit(model.represent_unchecked).lower(w, table_j, a, la).as_text())
    texts.append(jax.jit(crossval.couple_distances, static_argnums=6).lower(
        w, table_j, a, jnp.asarray(pairs.b), la, jnp.asarray(pairs.len_b), "euclidean").as_text())
    texts.append(forms._quads.lower(table_j, a[None], jnp.asarray(pairs.b)[None], la[None],
                                    jnp.asarray(pairs.len_b)[None], 8, False).as_text())
    texts.append(forms._grams.lower(table_j, a[None], jnp.asarray(pairs.b)[None], False).as_text())
    for text in texts:
        dots = _dot_lines(text)
        assert dots, "no contraction found"
        for line in dots:
            assert "precision = [HIGHEST, HIGHEST]" in line, line


@pytest.mark.parametrize("form", FORMS)
def test_same_seed_bitwise_same_weights_in_every_form(form):
    table, pairs = signal_pairs(n_pairs=600, width=10, seed=4, variable=True)
    cfg = TrainConfig(max_epochs=4)
    a = train(prepare(table, pairs, 7, form=form), cfg, 40.0, seed=11)
    b = train(prepare(table, pairs, 7, form=form), cfg, 40.0, seed=11)
    assert a.weights.tobytes() == b.weights.tobytes() and a.history.tobytes() == b.history.tobytes()


def test_held_out_distances_equal_pair_distances(synthetic):
    table, pairs = synthetic
    _, _, held = crossval.fold_indices(pairs.label, 3, seed=1)
    w = np.random.default_rng(2).uniform(0.1, 1.0, size=(4, 3, 10)).astype(np.float32)
    d = np.asarray(crossval.held_out_distances(jnp.asarray(w), jnp.asarray(table),
                                               *(jnp.asarray(np.asarray(x)[held]) for x in pairs[:4])))
    assert d.shape == (4, 3, held.shape[1])
    for i in range(4):
        for j in range(3):
            ref = scoring.pair_distances(w[i, j], table, pairs.take(held[j]))
            np.testing.assert_allclose(d[i, j], ref, rtol=1e-6, atol=1e-7)
    # in chunks (the last one padded): the same distances, bit for bit, in bounded memory
    chunk = held.shape[1] // 3 + 1
    assert held.shape[1] % chunk
    small = crossval.held_out_distances(w, table, *(np.asarray(x)[held] for x in pairs[:4]), chunk=chunk)
    assert small.tobytes() == d.tobytes()


def test_select_kappa_same_result_for_any_grouping(synthetic, monkeypatch):
    table, pairs = synthetic
    cfg = TrainConfig(max_epochs=4)
    prepared = prepare(table, pairs)
    monkeypatch.setitem(crossval.KAPPAS_PER_CALL, jax.default_backend(), 1)
    # the grid alone (extend=0): a kappa far beyond it amplifies the last bits that grouping moves
    one = crossval.select_kappa(prepared, grid=(5.0, 40.0, 160.0), config=cfg, extend=0)
    monkeypatch.setitem(crossval.KAPPAS_PER_CALL, jax.default_backend(), 3)
    all_ = crossval.select_kappa(prepared, grid=(5.0, 40.0, 160.0), config=cfg, extend=0)
    np.testing.assert_allclose(one.weights, all_.weights, rtol=1e-6, atol=1e-7)
    np.testing.assert_array_equal(one.epochs, all_.epochs)
    np.testing.assert_array_equal(one.errors, all_.errors)


_TWO_PROCESSES = """
import sys; sys.path.insert(0, sys.argv[1])
from repro.core.fit import fit
from repro.core.prepared import prepare
from synthetic import signal_pairs
table, pairs = signal_pairs(n_pairs=600, width=10, seed=4, variable=True)
run = fit(prepare(table, pairs, 7), grid=(5.0, 40.0), folds=3, seed=3, max_epochs=4)
print(run.cv.errors.tobytes().hex(), run.weights.tobytes().hex(), run.history.tobytes().hex())
"""


def _fresh_processes(code: str, envs: list[dict]) -> list[list[str]]:
    """``python -c code`` once per environment, and the words each printed. Each compiles every
    program itself (no compilation cache); on the CPU they run side by side, on a GPU one at a
    time and without taking most of its memory first (JAX's preallocation: this process holds
    its share already, and a child short of memory failed to start cuBLASLt on an H100)."""
    import os
    import subprocess
    import sys

    here = os.path.dirname(os.path.abspath(__file__))
    path = os.pathsep.join(filter(None, [os.path.dirname(here), os.environ.get("PYTHONPATH")]))
    together = jax.default_backend() == "cpu"
    procs, outs = [], []
    for env in envs:
        procs.append(subprocess.Popen([sys.executable, "-c", code, here], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                      text=True, env={**compilecache.without(), "PYTHONPATH": path,
                                                      **({} if together else {"XLA_PYTHON_CLIENT_PREALLOCATE": "false"}),
                                                      **env}))
        if not together:
            outs.append(procs[-1].communicate())
    outs = outs or [p.communicate() for p in procs]
    for p, (_, err) in zip(procs, outs):
        assert p.returncode == 0, err[-3000:]
    return [out.split() for out, _ in outs]


def test_two_processes_give_bitwise_same_results():
    """Kappa search and training, each in a fresh process: every bit the same (on a GPU this
    needs repro.core.jitting's options: autotuning may pick another kernel in each process)."""
    outs = _fresh_processes(_TWO_PROCESSES, [{}, {}])
    assert len(outs[0]) == 3 and outs[0] == outs[1]


_SHARDED = """
import sys; sys.path.insert(0, sys.argv[1])
import jax
from repro.core import crossval
from repro.core.prepared import prepare
from repro.core.train import TrainConfig
from synthetic import signal_pairs
table, pairs = signal_pairs(n_pairs=600, width=10, seed=4, variable=True)
cv = crossval.select_kappa(prepare(table, pairs, 7), grid=(5.0, 40.0, 160.0), folds=3, config=TrainConfig(max_epochs=5),
                           seed=3)
print(jax.device_count(), cv.errors.tobytes().hex(), cv.weights.tobytes().hex(), cv.epochs.tobytes().hex())
"""


def test_kappa_search_sharded_over_four_devices_is_bitwise_one_device():
    """The kappa x fold runs split across 4 (forced) CPU devices give every bit of one device."""
    outs = _fresh_processes(_SHARDED, [{"XLA_FLAGS": flags, "JAX_PLATFORMS": "cpu"}
                                       for flags in ("", "--xla_force_host_platform_device_count=4")])
    assert [o[0] for o in outs] == ["1", "4"]
    assert outs[0][1:] == outs[1][1:]
