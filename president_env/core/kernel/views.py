"""The kernels' views of one game's state, of the packed rules and of their scratch space.

Every entry point receives the state buffers (``b8, b16, b32, keys``: the batch axis first) and
the two rules arrays (``opt, tab``). It makes the rules' tables into the tuple ``T`` once per call,
and for each game ``b`` in turn the tuple ``G`` of that game's field groups, so that the rules
functions read one game with no batch index::

    s8, p8, pk8, k8, c8, hands, legal, i32, pts, i16, key = G      # s8[TOP_RANK], p8[N_CARDS, seat], ...
    (opt, act, card, play, kind, ks, power, sched, give, points, sets, rid, runs, claims, picks, natkind, obs,
     setkey, setlist) = T

or one slot by its name in :mod:`.fields` (``G[G_HANDS]``, ``T[T_SETS]``, ``W[W_SEL]``: compile-time
constants, never a number), as the scratch space ``W`` is read.

The views are made from raw addresses (``numba.carray``): they hold no reference count, so passing
them from function to function costs nothing, where views that carry one would cost two atomic
operations per array per call. The buffers stay alive in the entry point's arguments; ``W`` is a
workspace of scratch arrays over one allocation that the entry point allocates once per call and must
use again after its last use of ``W`` (numba frees a local after its last use, and these views would
not keep it). Under ``NUMBA_DISABLE_JIT=1`` the same views are NumPy slices.
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import carray, config, types
from numba.core import cgutils
from numba.extending import intrinsic

from .fields import (
    NC8_,
    NK8_,
    NP8_,
    NPK8_,
    NS8_,
    O_C,
    O_K,
    O_NNAT,
    O_NRP,
    O_OC8,
    O_OHANDS,
    O_OK8,
    O_OLEGAL,
    O_OP8,
    O_OPK8,
    O_P,
    O_R,
    O_S,
    O_TABLES,
    O_U,
)
from .jit import njit


@intrinsic
def _prefetch(typingctx, address):
    """Ask the CPU to bring the cache line at ``address`` (an integer) into its cache (``llvm.prefetch``)."""
    def codegen(context, builder, signature, args):
        i8p, i32 = ir.IntType(8).as_pointer(), ir.IntType(32)
        fn = cgutils.get_or_insert_function(builder.module, ir.FunctionType(ir.VoidType(), [i8p, i32, i32, i32]),
                                            "llvm.prefetch.p0")
        builder.call(fn, [builder.inttoptr(args[0], i8p), i32(0), i32(3), i32(1)])   # read, keep, data
        return context.get_dummy_value()

    return types.none(address), codegen


@intrinsic
def _pointer(typingctx, address, dtype):
    """An integer address as a data pointer of ``dtype`` (a NumPy scalar type)."""
    ptr_type = types.CPointer(dtype.dtype)

    def codegen(context, builder, signature, args):
        return builder.inttoptr(args[0], context.get_value_type(ptr_type))

    return ptr_type(address, dtype), codegen


if config.DISABLE_JIT:  # plain Python: NumPy views

    def game_views(b8, b16, b32, keys, opt, b):
        P, C, K = opt[O_P], opt[O_C], opt[O_K]
        N8 = b8.shape[1]
        row = b8[b]
        o = opt
        return (row[:NS8_], row[o[O_OP8]:o[O_OP8] + NP8_ * P].reshape((NP8_, P)),
                row[o[O_OPK8]:o[O_OPK8] + NPK8_ * P * K].reshape((NPK8_, P, K)),
                row[o[O_OK8]:o[O_OK8] + NK8_ * K].reshape((NK8_, K)),
                row[o[O_OC8]:o[O_OC8] + NC8_ * C].reshape((NC8_, C)),
                row[o[O_OHANDS]:o[O_OHANDS] + P * C].reshape((P, C)), row[o[O_OLEGAL]:N8],
                b32[b, :1], b32[b, 1:1 + 2 * P].reshape((2, P)), b16[b], keys[b:b + 1])

    def _table(opt, tab, i):
        off, rows, cols = opt[O_TABLES + 3 * i], opt[O_TABLES + 3 * i + 1], opt[O_TABLES + 3 * i + 2]
        return tab[off:off + rows * cols].reshape((rows, cols))

    def scratch_views(base, opt):
        return _scratch(base, opt, lambda o, n, shape, dt: base[o:o + n].reshape(shape))

else:

    @njit(forceinline=True)
    def game_views(b8, b16, b32, keys, opt, b):
        """Game ``b``'s field groups (see :mod:`president_env.core.layout`), as views without reference counts."""
        P, C, K = opt[O_P], opt[O_C], opt[O_K]
        a8 = b8.ctypes.data + b * b8.shape[1]
        a32 = b32.ctypes.data + 4 * b * b32.shape[1]
        return (carray(_pointer(a8, np.int8), (NS8_,)),
                carray(_pointer(a8 + opt[O_OP8], np.int8), (NP8_, P)),
                carray(_pointer(a8 + opt[O_OPK8], np.int8), (NPK8_, P, K)),
                carray(_pointer(a8 + opt[O_OK8], np.int8), (NK8_, K)),
                carray(_pointer(a8 + opt[O_OC8], np.int8), (NC8_, C)),
                carray(_pointer(a8 + opt[O_OHANDS], np.int8), (P, C)),
                carray(_pointer(a8 + opt[O_OLEGAL], np.int8), (b8.shape[1] - opt[O_OLEGAL],)),
                carray(_pointer(a32, np.int32), (1,)),
                carray(_pointer(a32 + 4, np.int32), (2, P)),
                carray(_pointer(b16.ctypes.data + 4 * b, np.int16), (2,)),
                carray(_pointer(keys.ctypes.data + 8 * b, np.uint64), (1,)))

    @njit(forceinline=True)
    def _table(opt, tab, i):
        off, rows, cols = opt[O_TABLES + 3 * i], opt[O_TABLES + 3 * i + 1], opt[O_TABLES + 3 * i + 2]
        return carray(_pointer(tab.ctypes.data + 4 * off, np.int32), (rows, cols))

    @njit(forceinline=True)
    def scratch_views(base, opt):
        """The workspace: views of one int64 allocation (``base``, kept alive by the caller)."""
        a = base.ctypes.data
        C, R, S, K, NNAT = opt[O_C], opt[O_R], opt[O_S], opt[O_K], opt[O_NNAT]
        o = 0
        sel = carray(_pointer(a + 8 * o, np.int64), (C,))
        o += C
        last = carray(_pointer(a + 8 * o, np.int64), (C,))
        o += C
        lo = carray(_pointer(a + 8 * o, np.int64), (R,))
        o += R
        hi = carray(_pointer(a + 8 * o, np.int64), (R,))
        o += R
        cap = carray(_pointer(a + 8 * o, np.int64), (R,))
        o += R
        extra = carray(_pointer(a + 8 * o, np.int64), (R, S))
        o += R * S
        nat = carray(_pointer(a + 8 * o, np.int64), (R,))
        o += R
        suited = carray(_pointer(a + 8 * o, np.int64), (K, 4))
        o += 4 * K
        per_kind = carray(_pointer(a + 8 * o, np.int64), (K,))
        o += K
        slots = carray(_pointer(a + 8 * o, np.int64), (C,))
        o += C
        pres = carray(_pointer(a + 8 * o, np.int64), (4 * NNAT + 1,))
        o += 4 * NNAT + 1
        NR2, U = opt[O_NRP] + 2, opt[O_U]
        picked = carray(_pointer(a + 8 * o, np.int64), (4, NR2, 5))
        o += 4 * NR2 * 5
        names = carray(_pointer(a + 8 * o, np.int64), (2, U))
        return (sel, last, lo, hi, cap, extra, nat, suited, per_kind, slots, pres, picked, names)


if config.DISABLE_JIT:

    def prefetch_row(b8, b):
        """(plain Python: nothing to do)"""

else:

    @njit(forceinline=True)
    def prefetch_row(b8, b):
        """Start loading game ``b``'s row of ``b8`` into the cache while another game is stepped: at large
        batches the rows no longer fit the core's cache, and a step that waits for each of its loads in
        turn takes half as long again."""
        a, n = b8.ctypes.data + b * b8.shape[1], b8.shape[1]
        for o in range(0, n + 63, 64):
            _prefetch(a + o)


def _scratch(base, opt, view):
    C, R, S, K, NNAT = opt[O_C], opt[O_R], opt[O_S], opt[O_K], opt[O_NNAT]
    out, o = [], 0
    NR2, U = opt[O_NRP] + 2, opt[O_U]
    for n, shape in ((C, (C,)), (C, (C,)), (R, (R,)), (R, (R,)), (R, (R,)), (R * S, (R, S)), (R, (R,)),
                     (4 * K, (K, 4)), (K, (K,)), (C, (C,)), (4 * NNAT + 1, (4 * NNAT + 1,)),
                     (4 * NR2 * 5, (4, NR2, 5)), (2 * U, (2, U))):
        out.append(view(o, n, shape, np.int64))
        o += n
    return tuple(out)


def _scratch_size(opt):
    """int64 words of the workspace."""
    C, R, S, K, NNAT = opt[O_C], opt[O_R], opt[O_S], opt[O_K], opt[O_NNAT]
    NR2, U = opt[O_NRP] + 2, opt[O_U]
    return 2 * C + 4 * R + R * S + 4 * K + K + C + 4 * NNAT + 1 + 4 * NR2 * 5 + 2 * U


scratch_size = njit(forceinline=True)(_scratch_size)
scratch_size_py = _scratch_size   # the same count from Python (``Consts.workspace``)


@njit(forceinline=True)
def rules_views(opt, tab):
    """``opt`` and the tables of :data:`fields.TABLES`, each a 2-D int32 view of ``tab``."""
    return (opt, _table(opt, tab, 0), _table(opt, tab, 1), _table(opt, tab, 2), _table(opt, tab, 3),
            _table(opt, tab, 4), _table(opt, tab, 5), _table(opt, tab, 6), _table(opt, tab, 7),
            _table(opt, tab, 8), _table(opt, tab, 9), _table(opt, tab, 10), _table(opt, tab, 11),
            _table(opt, tab, 12), _table(opt, tab, 13), _table(opt, tab, 14), _table(opt, tab, 15),
            _table(opt, tab, 16), _table(opt, tab, 17))


@njit
def batch_legal(b8, opt):
    """The (B, A) legal-action rows of the batch (a view), for checking actions before stepping."""
    return b8[:, opt[O_OLEGAL]:]
