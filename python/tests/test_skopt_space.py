"""scikit-optimize's transform API on gradfree.bo.space: ``transform``, ``inverse_transform``,
``set_transformer``, ``transformed_size`` and ``transformed_bounds`` of each dimension, and a
``Space``'s ``transform``, ``inverse_transform``, ``set_transformer(_by_type)``,
``transformed_n_dims`` and ``transformed_bounds``: expected values first (no skopt needed), then
the same calls against scikit-optimize's own objects when it is installed."""
import math
import warnings

import numpy as np
import pytest

from gradfree.bo import Optimizer
from gradfree.bo.space import Categorical, Integer, Real, Space, check_dimension
from gradfree.errors import InvalidParameterError

# --------------------------------------------------------------------------------------------
# Expected values (run without scikit-optimize).

# (dimension, X, transform(X), transformed_size, transformed_bounds)
EXPECTED = [
    (Real(-2.0, 3.0), [-2.0, 0.5, 3.0], [-2.0, 0.5, 3.0], 1, (-2.0, 3.0)),
    (Real(-2.0, 3.0, transform="normalize"), [-2.0, 0.5, 3.0], [0.0, 0.5, 1.0], 1, (0.0, 1.0)),
    (Real(1e-3, 1e2, "log-uniform"), [1e-3, 1.0, 100.0], [-3.0, 0.0, 2.0], 1, (-3.0, 2.0)),
    (Real(1.0, 64.0, "log-uniform", base=2), [1.0, 8.0, 64.0], [0.0, 3.0, 6.0], 1, (0.0, 6.0)),
    (Real(1.0, 64.0, "log-uniform", base=2, transform="normalize"), [1.0, 8.0, 64.0], [0.0, 0.5, 1.0], 1, (0.0, 1.0)),
    (Integer(-3, 7), [-3, 2, 7], [-3, 2, 7], 1, (-3, 7)),
    (Integer(-3, 7, transform="normalize"), [-3, 2, 7], [0.0, 0.5, 1.0], 1, (0.0, 1.0)),
    (Integer(1, 1000, "log-uniform"), [1, 10, 1000], [0.0, 1.0, 3.0], 1, (0.0, 3.0)),
    (Integer(1, 64, "log-uniform", base=2, transform="normalize"), [1, 8, 64], [0.0, 0.5, 1.0], 1, (0.0, 1.0)),
    (Categorical(["only"]), ["only"], [[0]], 1, (0.0, 1.0)),
    (Categorical(["a", "b"]), ["b", "a"], [[1], [0]], 1, (0.0, 1.0)),
    (Categorical(["a", "b", "c", "d"]), ["c", "a"], [[0, 0, 1, 0], [1, 0, 0, 0]], 4, [(0.0, 1.0)] * 4),
    (Categorical([1, 2, 3, 4], transform="label"), [3, 1], [2, 0], 1, (0.0, 3.0)),
    (Categorical([1, 2, 3, 4], transform="normalize"), [1, 2, 4], [0.0, 1 / 3, 1.0], 1, (0.0, 1.0)),
    (Categorical([True, False], transform="string"), [False, True], ["False", "True"], 1, (0.0, 1.0)),
    (Categorical([True, False], transform="identity"), [False], [False], 1, (0.0, 1.0)),
]


@pytest.mark.parametrize("dim,X,Xt,size,bounds", EXPECTED, ids=[f"{e[0]!r}" for e in EXPECTED])
def test_transforms_give_the_expected_values(dim, X, Xt, size, bounds):
    got = dim.transform(X)
    if isinstance(Xt[0], str):
        assert got == Xt
    else:
        np.testing.assert_allclose(np.asarray(got, dtype=float), np.asarray(Xt, dtype=float), rtol=0, atol=1e-12)
    assert dim.transformed_size == size
    assert dim.transformed_bounds == bounds
    back = dim.inverse_transform(got)
    assert list(back) == list(X) and all(type(a) is type(b) or isinstance(a, np.generic) for a, b in zip(back, X))


@pytest.mark.parametrize("dim,Xt,expected", [
    (Real(-2.0, 3.0), [-5.0, 1.0, 9.0], [-2.0, 1.0, 3.0]),                    # clipped
    (Real(1.0, 64.0, "log-uniform", base=2), [-1.0, 2.5], [1.0, 2 ** 2.5]),
    (Real(-2.0, 3.0, transform="normalize"), [0.0, 0.2, 1.0], [-2.0, -1.0, 3.0]),
    (Integer(-3, 7), [-10, 2.4, 99], [-3, 2, 7]),                              # clipped and rounded
    (Integer(-3, 7, transform="normalize"), [0.04, 0.56, 1.0], [-3, 3, 7]),
    (Integer(1, 64, "log-uniform", base=2), [2.5, 7.0], [6, 64]),
    (Categorical(["a", "b", "c", "d"]), [[0.1, 0.7, 0.2, 0.0], [0.0, 0.0, 0.0, 0.9]], ["b", "d"]),  # argmax
    (Categorical(["a", "b"]), [0.2, 0.5, 0.51], ["a", "a", "b"]),                                  # > 0.5
    (Categorical([1, 2, 3, 4], transform="label"), [1.6, 0.2], [3, 1]),
    (Categorical([1, 2, 3, 4], transform="normalize"), [0.3, 0.7], [2, 3]),
    (Categorical([True, False], transform="string"), ["False", "True"], [False, True]),
])
def test_inverse_transforms_give_the_expected_values(dim, Xt, expected):
    got = list(dim.inverse_transform(Xt))
    if isinstance(dim, Real):
        assert got == pytest.approx(expected, rel=1e-12)
    else:
        assert got == expected


def test_output_types_are_scikit_optimizes():
    assert isinstance(Real(0.0, 1.0).inverse_transform(np.array([0.5])), list)       # floats, as a list
    assert type(Real(0.0, 1.0).inverse_transform(0.5)) is float
    got = Integer(0, 9).inverse_transform([1.2, 3.7])
    assert isinstance(got, np.ndarray) and got.dtype == np.int64                   # dtype np.int64
    assert Integer(0, 9, dtype=int).inverse_transform([1.2, 3.7]) == [1, 4]          # dtype int: a list
    onehot = Categorical(["a", "b", "c"]).transform(["a"])
    assert isinstance(onehot, np.ndarray) and onehot.dtype == np.int64 and onehot.shape == (1, 3)
    assert Categorical(["a", "b", "c"], transform="label").transform(["c"]) == [2]
    cats = Categorical(["a", "b", "c"]).inverse_transform([[0, 0, 1]])
    assert isinstance(cats, np.ndarray) and cats.tolist() == ["c"]
    x = [0.25, 0.5]
    assert Real(0.0, 1.0).transform(x) is x, "identity on a uniform prior returns its input, as skopt"


def test_mixed_categories_keep_their_types_and_stay_distinct():
    # scikit-optimize maps 1 and True to one key (and coerces the inverse to strings); here they
    # are three categories.
    for t in ("onehot", "label", "normalize", "string", "identity"):
        dim = Categorical(["a", 1, True], transform=t)
        back = dim.inverse_transform(dim.transform(["a", 1, True]))
        assert [type(v) for v in back] == [str, int, bool], t
    assert Categorical(["a", 1, True]).transform([True]).tolist() == [[0, 0, 1]]


def test_space_transform_and_inverse():
    space = Space([Real(0.0, 10.0), Integer(1, 5), Categorical(["a", "b", "c"]), Categorical([True, False]),
                   Categorical(["only"])])
    X = [[2.5, 3, "b", False, "only"], [10.0, 1, "a", True, "only"]]
    Xt = space.transform(X)
    assert Xt.dtype == float and Xt.shape == (2, 7) and space.transformed_n_dims == 7
    assert Xt.tolist() == [[2.5, 3, 0, 1, 0, 1, 0], [10.0, 1, 1, 0, 0, 0, 0]]
    assert space.transformed_bounds == [(0.0, 10.0), (1, 5), (0.0, 1.0), (0.0, 1.0), (0.0, 1.0), (0.0, 1.0), (0.0, 1.0)]
    back = space.inverse_transform(Xt)
    assert back == X and [type(v) for v in back[0]] == [float, int, str, bool, str], "Python values"
    space.set_transformer("normalize")
    assert space.get_transformer() == ["normalize"] * 5 and space.transformed_n_dims == 5
    assert space.transform(X).tolist() == [[0.25, 0.5, 0.5, 1.0, 0.0], [1.0, 0.0, 0.0, 0.0, 0.0]]
    assert space.inverse_transform(space.transform(X)) == X
    space.set_transformer_by_type("onehot", Categorical)
    assert space.get_transformer() == ["normalize", "normalize", "onehot", "onehot", "onehot"]
    space.set_transformer(["identity", "identity", "label", "string", "identity"])
    assert space.transform(X).tolist() == [["2.5", "3", "1", "False", "only"], ["10.0", "1", "0", "True", "only"]]
    assert space.inverse_transform(space.transform(X)) == X
    assert Space([Integer(1, 5), Integer(2, 8)]).transform([[1, 2]]).dtype == float, "a float array"
    assert Space([Real(0.0, 1.0)]).transform([]).shape == (0, 1)


def test_check_dimension_and_skopt_style_constructors_take_the_transform():
    assert check_dimension((1, 5), transform="normalize").transform_ == "normalize"
    assert check_dimension(["a", "b"], transform="label").transform_ == "label"
    assert check_dimension((1e-3, 1.0, "log-uniform"), transform="normalize").transform([1.0]) == pytest.approx([1.0])
    dim = Real(0.0, 1.0)
    assert check_dimension(dim, transform="normalize") is dim and dim.transform_ == "identity"
    dim.set_transformer("normalize")
    assert dim.transform_ == "normalize" and dim.transform([0.25]) == pytest.approx([0.25])
    dim.set_transformer()
    assert dim.transform_ == "identity"
    cat = Categorical(["a", "b", "c"], transform="label")
    cat.set_transformer()
    assert cat.transform_ == "onehot" and cat.transformed_size == 3


def test_the_optimizer_does_not_depend_on_the_transform():
    def points(transform, cat_transform):
        dims = [Real(1e-3, 1.0, "log-uniform", transform=transform), Integer(0, 9, transform=transform),
                Categorical(["a", "b", "c"], transform=cat_transform)]
        opt = Optimizer(dims, n_initial_points=3, random_state=0, acq_starts=2)
        out = []
        for _ in range(5):
            x = opt.ask()
            opt.tell(x, (math.log10(x[0]) + 1) ** 2 + (x[1] - 4) ** 2 + (x[2] != "b"))
            out.append(x)
        return out
    assert points("identity", "onehot") == points("normalize", "label")


BAD = [
    (lambda: Real(0.0, 1.0, transform="onehot"), "'onehot'"),
    (lambda: Real(0.0, 1.0).set_transformer("log"), "'log'"),
    (lambda: Integer(0, 5).set_transformer(None), "None"),
    (lambda: Categorical(["a", "b"]).set_transformer("one-hot"), "'one-hot'"),
    (lambda: Categorical(["a", "b"], transform="bogus"), "'bogus'"),
    (lambda: Space([Real(0.0, 1.0)]).set_transformer("bogus"), "'bogus'"),
    (lambda: Space([Real(0.0, 1.0)]).set_transformer(["normalize", "identity"]), "one transform per dimension"),
    (lambda: Space([Real(0.0, 1.0)]).set_transformer_by_type("normalize", "Real"), "dim_type"),
    (lambda: Real(0.0, 1.0, transform="normalize").transform([1.5]), "within"),
    (lambda: Real(0.0, 1.0, transform="normalize").inverse_transform([1.5]), "within"),
    (lambda: Integer(0, 5, transform="normalize").transform([6]), "within"),
    (lambda: Real(1.0, 10.0, "log-uniform").transform([0.0]), "<= 0"),
    (lambda: Real(0.0, 1.0).inverse_transform([math.nan]), "NaN"),
    (lambda: Real(0.0, 1.0, transform="normalize").transform(["x"]), "expected numbers"),
    (lambda: Categorical(["a", "b"]).transform(["z"]), "'z'"),
    (lambda: Categorical(["a", "b"]).transform("ab"), "list of categories"),
    (lambda: Categorical(["a", "b", "c"], transform="label").inverse_transform([3.0]), "labels"),
    (lambda: Categorical(["a", "b", "c"], transform="normalize").inverse_transform([1.2]), "within"),
    (lambda: Categorical(["a", "b", "c"]).inverse_transform([0.0, 1.0]), "3 columns"),
    (lambda: Categorical([1, 2], transform="string").inverse_transform(["3"]), "'3'"),
    (lambda: Space([Real(0.0, 1.0), Integer(0, 3)]).transform([[0.5]]), "2 values"),
    (lambda: Space([Real(0.0, 1.0), Integer(0, 3)]).transform(5), "list of points"),
    (lambda: Space([Real(0.0, 1.0), Integer(0, 3)]).inverse_transform([[0.5, 1.0, 2.0]]), "shape"),
]


@pytest.mark.parametrize("call,needle", BAD, ids=[b[1] for b in BAD])
def test_bad_input_is_an_invalid_parameter_error(call, needle):
    with pytest.raises(InvalidParameterError, match=None) as err:
        call()
    assert needle in str(err.value) and isinstance(err.value, ValueError)


def test_a_rejected_space_transform_changes_no_dimension():
    space = Space([Real(0.0, 1.0), Categorical(["a", "b"])])
    with pytest.raises(InvalidParameterError, match="'label'"):
        space.set_transformer("label")         # the Categorical accepts it, the Real does not
    assert space.get_transformer() == ["identity", "onehot"]


# --------------------------------------------------------------------------------------------
# Against scikit-optimize's own objects.

def _cases():
    """(kind, args, kwargs, X, Xt for the inverse) for each dimension and transform."""
    out = []
    numeric = [("Real", (-2.0, 3.0), {}, [-2.0, -0.3, 0.5, 3.0]),
               ("Real", (1e-3, 1e2, "log-uniform"), {}, [1e-3, 0.02, 1.0, 100.0]),
               ("Real", (1.0, 64.0, "log-uniform"), {"base": 2}, [1.0, 3.3, 8.0, 64.0]),
               ("Integer", (-3, 7), {}, [-3, 0, 2, 7]),
               ("Integer", (1, 1000, "log-uniform"), {}, [1, 7, 10, 1000]),
               ("Integer", (1, 64, "log-uniform"), {"base": 2}, [1, 3, 8, 64])]
    for kind, args, kw, X in numeric:
        for t in ("identity", "normalize"):
            if t == "normalize":
                Xt = [0.0, 0.123, 0.5, 0.987, 1.0]
            elif len(args) == 2:
                Xt = [args[0] - 1.0, args[0] + 0.37, args[1] - 0.6, args[1] + 1.0]    # clipped ends
            else:
                lo, hi = (math.log(v, kw.get("base", 10)) for v in args[:2])
                Xt = [lo - 0.3, lo + 0.41, hi - 0.77, hi + 0.2]
            out.append((kind, args, {**kw, "transform": t}, X, Xt))
    categories = [["only"], [7], [True], ["a", "b"], [1, 2], [True, False], ["a", "b", "c", "d"], [1, 2, 3, 4]]
    for cats in categories:
        n = len(cats)
        X = cats + cats[::-1]
        for t in ("onehot", "label", "normalize", "string", "identity"):
            if t == "onehot" and n > 2:
                Xt = np.random.default_rng(n).uniform(0, 1, (5, n))
            elif t == "onehot":
                Xt = [0.0, 0.2, 0.5, 0.51, 1.0]
            elif t == "label":
                Xt = [float(k) + d for k in range(n) for d in (-0.4, 0.3) if 0 <= k + d <= n - 1] or [0.0]
            elif t == "normalize":
                Xt = [0.0, 0.3, 0.5, 0.7, 1.0]
            elif t == "string":
                Xt = [str(c) for c in cats]
            else:
                Xt = list(cats)
            out.append(("Categorical", (cats,), {"transform": t}, X, Xt))
    return out


CASES = _cases()


def _bounds_depart(dim) -> bool:
    """Where scikit-optimize's transformed_bounds contradict its own transform (module
    gradfree.bo._transform): log_base of a log-uniform Real with base != 10 and of any log-uniform
    Integer under 'identity', and 'label' of more than two categories."""
    if isinstance(dim, Categorical):
        return dim.transform_ == "label" and len(dim.categories) > 2
    return dim.transform_ == "identity" and dim.prior == "log-uniform" and (isinstance(dim, Integer) or dim.base != 10)


def _assert_bounds(ours, theirs):
    assert type(ours) is type(theirs)
    np.testing.assert_allclose(np.array(ours, dtype=float), np.array(theirs, dtype=float), rtol=1e-12)


def _assert_same(ours, theirs, what):
    """The same container, dtype kind and values."""
    assert type(ours) is type(theirs) or (isinstance(ours, np.generic) and isinstance(theirs, np.generic)), \
        (what, type(ours), type(theirs))
    if isinstance(theirs, np.ndarray):
        assert ours.shape == theirs.shape and ours.dtype.kind == theirs.dtype.kind, (what, ours, theirs)
    a, b = np.asarray(ours), np.asarray(theirs)
    if b.dtype.kind == "f":
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12, err_msg=what)
    else:
        assert a.tolist() == b.tolist(), (what, ours, theirs)


@pytest.mark.parametrize("kind,args,kw,X,Xt", CASES, ids=[f"{c[0]}{c[1]}{c[2]}" for c in CASES])
def test_dimension_transforms_agree_with_skopt(kind, args, kw, X, Xt):
    skopt_space = pytest.importorskip("skopt.space")
    ours, theirs = globals()[kind](*args, **kw), getattr(skopt_space, kind)(*args, **kw)
    assert ours.transform_ == theirs.transform_ and ours.transformed_size == theirs.transformed_size
    if not _bounds_depart(ours):
        _assert_bounds(ours.transformed_bounds, theirs.transformed_bounds)
    elif kind == "Categorical":
        assert ours.transformed_bounds == (0.0, ours.transform([ours.categories[-1]])[0])    # the last label
    else:
        assert ours.transformed_bounds == pytest.approx(tuple(ours.transform(list(ours.bounds))), rel=1e-12)
    mine, skopts = ours.transform(list(X)), theirs.transform(list(X))
    _assert_same(mine, skopts, "transform")
    if kw["transform"] == "string" and isinstance(ours.categories[0], bool):
        # scikit-optimize's inverse is bool("False") == True; here it is the category False.
        assert ours.inverse_transform(mine).tolist() == X
        return
    _assert_same(ours.inverse_transform(mine), theirs.inverse_transform(skopts), "round trip")
    if kind == "Categorical":
        Xt_in = np.asarray(Xt) if kw["transform"] in ("onehot", "label", "normalize") else list(Xt)
    else:
        Xt_in = np.asarray(Xt, dtype=float)
    _assert_same(ours.inverse_transform(Xt_in), theirs.inverse_transform(Xt_in), "inverse of Xt")


SPACES = [
    ("default", None),
    ("normalize", "normalize"),
    ("per dimension", ["normalize", "identity", "normalize", "identity", "label", "normalize", "onehot", "normalize"]),
    ("by type", ("normalize", "Real")),
]


def _space_dims(module):
    return [module.Real(-2.0, 3.0), module.Real(1e-3, 1e2, "log-uniform"), module.Integer(-3, 7),
            module.Integer(1, 1000, "log-uniform"), module.Categorical(["a", "b", "c", "d"]),
            module.Categorical([True, False]), module.Categorical(["only"]), module.Categorical([1, 2, 3])]


@pytest.mark.parametrize("label,transform", SPACES, ids=[s[0] for s in SPACES])
def test_space_transforms_agree_with_skopt(label, transform):
    skopt_space = pytest.importorskip("skopt.space")
    import gradfree.bo.space as our_space
    ours, theirs = Space(_space_dims(our_space)), skopt_space.Space(_space_dims(skopt_space))
    for space, module in ((ours, our_space), (theirs, skopt_space)):
        if isinstance(transform, tuple):
            space.set_transformer_by_type(transform[0], getattr(module, transform[1]))
        elif transform is not None:
            space.set_transformer(transform)
    assert ours.get_transformer() == theirs.get_transformer()
    assert ours.transformed_n_dims == theirs.transformed_n_dims
    departs = [_bounds_depart(d) for d in ours.dimensions]
    if not any(departs):
        _assert_bounds(ours.transformed_bounds, theirs.transformed_bounds)
    X = theirs.rvs(6, random_state=3)
    X = [[v.item() if isinstance(v, np.generic) else v for v in p] for p in X]
    mine, skopts = ours.transform(X), theirs.transform(X)
    assert mine.dtype == float and mine.shape == skopts.shape
    np.testing.assert_allclose(mine, skopts.astype(float), rtol=1e-12, atol=1e-12)
    back, skopt_back = ours.inverse_transform(mine), theirs.inverse_transform(skopts)
    assert _points_equal(back, X) and _points_equal(back, skopt_back)
    assert all(not isinstance(v, np.generic) for p in back for v in p), "Python values"
    if not any(departs):
        # Off-grid points of the warped space decode the same way.
        lo, hi = np.array(theirs.transformed_bounds, dtype=float).T
        U = lo + (hi - lo) * np.random.default_rng(0).uniform(0.05, 0.95, (8, len(lo)))
        assert _points_equal(ours.inverse_transform(U), theirs.inverse_transform(U))


def _points_equal(P, Q) -> bool:
    return len(P) == len(Q) and all(
        len(p) == len(q) and all(a == pytest.approx(b, rel=1e-12) if isinstance(a, float) else a == b
                                 for a, b in zip(p, q)) for p, q in zip(P, Q))


def test_skopt_dimensions_are_read_with_their_transform():
    skopt_space = pytest.importorskip("skopt.space")
    space = Space([skopt_space.Real(0.0, 1.0, transform="normalize"), skopt_space.Categorical(["a", "b"], transform="label")])
    assert space.get_transformer() == ["normalize", "label"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = skopt_space.check_dimension((1, 5), transform="normalize")
    assert check_dimension((1, 5), transform="normalize").transform_ == theirs.transform_
    ours = Space([Real(0.0, 1.0), Integer(0, 4), Categorical(["a", "b", "c"])])
    ours.set_transformer_by_type("normalize", skopt_space.Integer)        # scikit-optimize's class, by name
    ours.set_transformer_by_type("label", (Categorical,))
    assert ours.get_transformer() == ["identity", "normalize", "label"]
