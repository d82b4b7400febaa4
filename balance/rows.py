"""Tracked rows: the per-dimension win rates of ``summary.json``, computed per game from records.

A *row* is one line of a summary dimension (a character, a matchup, an Overdrive, a card "when played",
a seat, went first / did not, the draw and timeout rates). Each row is a ratio ``wins / seat-games``,
except the ``usage`` rows: per card (and per Overdrive and character where the records name them) the
share of *all* seat-games in which the seat used (played, picked or was dealt) it, ``used / seat-games``
(keys ``card:KEY``, ``overdrive:KEY``, ``character:KEY``). A win rate "when played" says nothing about a
card nobody plays any more; its usage rate does (a card that a data change makes unplayable drops from
its usage to 0%). The sums below call the numerator ``W`` for every row.
The drift gate, the sweeps and the auto-balancer need more than the totals: they need each *cluster*'s
contribution (a game, or one deal played in both seat orders, or the ``L`` games of a deal whose
strategies are rotated over the seats, ``Prepared.rotation``), because clusters are the independent
units the statistics rest on (see :mod:`balance.stats`). :class:`RowSpace` turns record arrays into
dense ``n[cluster, row]`` / ``w[cluster, row]`` matrices, one pair per dimension; game ``i`` of a records
array is cluster ``i // cluster_size``.

Row identities are the data's own keys (``terry``, ``terry:elaine``, ``thrust``, ``1`` for seat 1), not
indices, so two runs on different data (a character added, a card renamed in the display) are matched
by key. The row definitions are those of :mod:`reports.aggregate` (a card row counts the seat-games in
which the seat played the card; a draw is not a win); ``tests/test_drift.py`` checks that the totals
equal the report's.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from numba import njit

DIMENSIONS = ("seat", "turn_order", "character", "matchup", "overdrive", "card", "usage", "health",
              "seat_by_players", "character_by_players")
# rows that are a rate of an event rather than a win rate: the drift gate also judges them on the odds scale
# (a timeout rate from 0% to 0.3% is a new failure mode, however small in points)
RATE_OF_EVENT = ("usage", "health")
TITLES = {"seat": "seat", "turn_order": "turn order", "character": "character", "matchup": "matchup",
          "overdrive": "Overdrive", "card": "card (when played)", "usage": "usage", "health": "game health",
          "seat_by_players": "seat by player count", "character_by_players": "character by player count"}


@dataclass
class Dim:
    """One dimension's rows: stable keys, display names, provisional marks."""

    name: str
    keys: list[str]
    names: list[str]
    provisional: list[bool] = field(default_factory=list)

    def __post_init__(self):
        if not self.provisional:
            self.provisional = [False] * len(self.keys)


def _seat_bases(names: tuple[str, ...], seats: int) -> list[str]:
    return [n[:-1] for n in names if n.endswith("0") and all(f"{n[:-1]}{s}" in names for s in range(seats))]


class RowSpace:
    """The tracked rows of one game's records (built from the game's ``labels()`` and record dtype).

    ``dims`` restricts the dimensions (default: every one the records support). ``by_players`` adds the
    per-player-count splits (for setups whose player count varies).
    """

    def __init__(self, labels: dict, dtype_names, dims=None, by_players: bool = False):
        names = tuple(dtype_names)
        self.seats = int(labels.get("seats", 2))
        aliases = labels.get("column_aliases") or {}
        bases = _seat_bases(names, self.seats)
        self.base = {aliases.get(b, b): b for b in bases}  # logical name (char, od, used) -> column base
        self.has_first = "first" in names
        self.has_players = "n_players" in names
        self.timeout_code = list(labels["end_reason"]).index("timeout") if "timeout" in labels["end_reason"] else -1
        prov = labels.get("provisional", {})
        out: dict[str, Dim] = {}
        self.n_chars = len(labels.get("character") or [])
        out["seat"] = Dim("seat", [str(s + 1) for s in range(self.seats)], [f"seat {s + 1}" for s in range(self.seats)])
        if self.has_first:
            out["turn_order"] = Dim("turn_order", ["first", "not_first"], ["went first", "did not go first"])
        if "char" in self.base and "character" in labels:
            ck = list(labels.get("character_key") or labels["character"])
            cn = list(labels["character"])
            cp = list(prov.get("character", [False] * len(ck)))
            out["character"] = Dim("character", ck, cn, cp)
            if self.seats == 2:
                out["matchup"] = Dim("matchup", [f"{a}:{b}" for a in ck for b in ck],
                                     [f"{a} vs {b}" for a in cn for b in cn],
                                     [pa or pb for pa in cp for pb in cp])
        if "od" in self.base and "overdrive" in labels:
            ok = list(labels.get("overdrive_key") or labels["overdrive"])
            out["overdrive"] = Dim("overdrive", ok, list(labels["overdrive"]),
                                   list(prov.get("overdrive", [False] * len(ok))))
        if "used" in self.base and labels.get("card"):
            kk = list(labels.get("card_key") or labels["card"])
            out["card"] = Dim("card", kk, list(labels["card"]), list(prov.get("card", [False] * len(kk))))
        # usage: per card / Overdrive / character, the seat-games that used (picked, were dealt) it over all
        # seat-games; (kind, local index) per row, the kind's column and, for cards, the bit of the ``used`` mask
        self.usage: list[tuple[str, int]] = []
        uk, un, up = [], [], []
        for kind, dim_name in (("card", "card"), ("overdrive", "overdrive"), ("character", "character")):
            if dim_name not in out:
                continue
            dim = out[dim_name]
            for i, (k, n, p) in enumerate(zip(dim.keys, dim.names, dim.provisional)):
                if not k:
                    continue
                self.usage.append((kind, i))
                uk.append(f"{kind}:{k}")
                un.append(f"{n} ({kind})")
                up.append(p)
        if uk:
            out["usage"] = Dim("usage", uk, un, up)
        out["health"] = Dim("health", ["draw", "timeout"], ["draw rate", "timeout rate"])
        if by_players and self.has_players:
            ns = range(2, self.seats + 1)
            out["seat_by_players"] = Dim("seat_by_players", [f"{n}p:{s + 1}" for n in ns for s in range(self.seats)],
                                         [f"{n} players, seat {s + 1}" for n in ns for s in range(self.seats)])
            if "character" in out:
                c = out["character"]
                out["character_by_players"] = Dim(
                    "character_by_players", [f"{n}p:{k}" for n in ns for k in c.keys],
                    [f"{n} players, {x}" for n in ns for x in c.names], [p for _ in ns for p in c.provisional])
        if dims is not None:
            unknown = [d for d in dims if d not in out]
            if unknown:
                from balance.errors import BalanceError

                raise BalanceError(f"no dimension {unknown[0]!r} in this game's records; available: "
                                   f"{', '.join(out)}")
            out = {d: out[d] for d in dims}
        self.dims = out

    # ------------------------------------------------------------------ per-cluster contributions
    def _seat_games(self, recs: np.ndarray):
        """Flat arrays over (game, seat) of the seats that played: cluster index, seat, win, columns."""
        n = len(recs)
        idx = np.arange(n, dtype=np.int64)
        parts = []
        for s in range(self.seats):
            keep = (recs["n_players"] > s) if self.has_players else np.ones(n, bool)
            d = {"cl": idx[keep], "seat": np.full(int(keep.sum()), s, np.int64),
                 "win": (recs["winner"][keep] == s)}
            for logical, b in self.base.items():
                d[logical] = recs[f"{b}{s}"][keep]
            if "char" in self.base and self.seats == 2:
                d["opp"] = recs[f"{self.base['char']}{1 - s}"][keep]
            if self.has_first:
                d["first"] = recs["first"][keep] == s
            if self.has_players:
                d["n_players"] = recs["n_players"][keep].astype(np.int64)
            parts.append(d)
        return {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}

    def contributions(self, recs: np.ndarray):
        """``{dim: (game, local row, win)}`` index arrays for one records array (game i of the array).

        ``usage`` is special: its entries are only the *uses* (win = 1), and every seat-game also counts in
        the denominator of every usage row (see :meth:`usage_base`)."""
        sg = self._seat_games(recs)
        cl, win = sg["cl"], sg["win"]
        out = {}
        for name, dim in self.dims.items():
            if name == "seat":
                out[name] = (cl, sg["seat"], win)
            elif name == "turn_order":
                out[name] = (cl, np.where(sg["first"], 0, 1), win)
            elif name == "character":
                c = sg["char"].astype(np.int64)
                ok = c >= 0
                out[name] = (cl[ok], c[ok], win[ok])
            elif name == "matchup":
                nc = self.n_chars
                c, o = sg["char"].astype(np.int64), sg["opp"].astype(np.int64)
                ok = (c >= 0) & (o >= 0)
                out[name] = (cl[ok], c[ok] * nc + o[ok], win[ok])
            elif name == "overdrive":
                c = sg["od"].astype(np.int64)
                ok = c >= 0
                out[name] = (cl[ok], c[ok], win[ok])
            elif name == "card":
                used = sg["used"].astype(np.uint64)
                cs, rs, ws = [], [], []
                for k, key in enumerate(dim.keys):
                    if not key:
                        continue
                    hit = ((used >> np.uint64(k)) & np.uint64(1)).astype(bool)
                    cs.append(cl[hit])
                    rs.append(np.full(int(hit.sum()), k, np.int64))
                    ws.append(win[hit])
                out[name] = (np.concatenate(cs), np.concatenate(rs), np.concatenate(ws)) if cs else \
                    (cl[:0], cl[:0], win[:0])
            elif name == "usage":
                cs, rs = [], []
                used = sg["used"].astype(np.uint64) if "used" in sg else None
                for j, (kind, k) in enumerate(self.usage):
                    if kind == "card":
                        hit = ((used >> np.uint64(k)) & np.uint64(1)).astype(bool)
                    else:
                        hit = sg["od" if kind == "overdrive" else "char"].astype(np.int64) == k
                    cs.append(cl[hit])
                    rs.append(np.full(int(hit.sum()), j, np.int64))
                c = np.concatenate(cs)
                out[name] = (c, np.concatenate(rs), np.ones(c.size, bool))
            elif name == "health":
                g = np.arange(len(recs), dtype=np.int64)
                draw = recs["winner"] < 0
                tout = recs["end_reason"] == self.timeout_code
                out[name] = (np.concatenate([g, g]), np.concatenate([np.zeros_like(g), np.ones_like(g)]),
                             np.concatenate([draw, tout]))
            elif name == "seat_by_players":
                out[name] = (cl, (sg["n_players"] - 2) * self.seats + sg["seat"], win)
            elif name == "character_by_players":
                nc = self.n_chars
                c = sg["char"].astype(np.int64)
                ok = c >= 0
                out[name] = (cl[ok], (sg["n_players"][ok] - 2) * nc + c[ok], win[ok])
        return out

    def usage_base(self, recs: np.ndarray) -> np.ndarray:
        """The game of every seat-game (the denominator every usage row shares)."""
        n = len(recs)
        idx = np.arange(n, dtype=np.int64)
        if not self.has_players:
            return np.tile(idx, self.seats)
        return np.concatenate([idx[recs["n_players"] > s] for s in range(self.seats)])

    def dense(self, recs_list, clusters: int, index: dict | None = None, cluster_size: int = 1):
        """``{dim: (n, w)}`` int32 matrices ``[clusters, rows]``; every records array in ``recs_list``
        (one per seat order) has game i in cluster ``i // cluster_size`` (``cluster_size``: the games a
        deal is played as with the strategies rotated over the seats, ``Prepared.rotation``; the records
        of a chunk start at a deal's first game). ``index[dim] = (map, width)`` re-indexes local rows into
        a common row space of ``width`` rows (two runs on different data, see :func:`union_space`)."""
        out = {}
        L = int(cluster_size)
        if L < 1:
            raise ValueError(f"cluster_size must be >= 1, got {cluster_size}")
        for recs in recs_list:
            if len(recs) > clusters * L:
                raise ValueError(f"{len(recs)} games do not fit {clusters} clusters of {L}")
            for name, (cl, r, w) in self.contributions(recs).items():
                if index is not None:
                    m, width = index[name]
                    r = m[r]
                else:
                    width = len(self.dims[name].keys)
                if name not in out:
                    out[name] = (np.zeros((clusters, width), np.int32), np.zeros((clusters, width), np.int32))
                cl = cl.astype(np.int64) // L if L > 1 else cl.astype(np.int64)
                if name == "usage":  # every seat-game counts in every usage row's denominator; the uses are wins
                    n, wins = out[name]
                    per = np.bincount(self.usage_base(recs) // L, minlength=clusters).astype(np.int32)
                    # the rows of this records' own space (a row another run's data added gets no seat-games)
                    cols = np.arange(width) if index is None else index[name][0]
                    n[:, cols] += per[:, None]
                    _accumulate_w_nb(cl, r.astype(np.int64), wins)
                    continue
                _accumulate_nb(cl, r.astype(np.int64), w.astype(np.int32), *out[name])
        return out


def union_space(spaces: list[RowSpace]):
    """Common row keys per dimension over several runs' row spaces, and each space's index map."""
    dims = {}
    maps = [dict() for _ in spaces]
    names = [d for d in spaces[0].dims if all(d in s.dims for s in spaces)]
    for d in names:
        keys, disp, prov = [], [], []
        pos = {}
        for s in spaces:
            dim = s.dims[d]
            for k, n, p in zip(dim.keys, dim.names, dim.provisional):
                if k not in pos:
                    pos[k] = len(keys)
                    keys.append(k)
                    disp.append(n)
                    prov.append(p)
        dims[d] = Dim(d, keys, disp, prov)
        for i, s in enumerate(spaces):
            maps[i][d] = (np.array([pos[k] for k in s.dims[d].keys], dtype=np.int64), len(keys))
    return dims, maps


def sums(n: np.ndarray, w: np.ndarray) -> dict:
    """Per-row sums over clusters: ``N, W, ww, wn, nn`` (int64)."""
    out = np.zeros((5, n.shape[1]), np.int64)
    _sums_nb(n, w, out)
    return dict(zip(("N", "W", "ww", "wn", "nn"), out))


def cross_sums(a: tuple, b: tuple) -> dict:
    """Per-row sums over clusters of products between two runs: ``w_a w_b``, ``w_a n_b``, ``n_a w_b``,
    ``n_a n_b``."""
    out = np.zeros((4, a[0].shape[1]), np.int64)
    _cross_nb(a[0], a[1], b[0], b[1], out)
    return dict(zip(("ww", "wn", "nw", "nn"), out))


@njit(cache=True)
def _accumulate_nb(cl, r, w, n, wins):
    for i in range(cl.size):
        n[cl[i], r[i]] += 1
        wins[cl[i], r[i]] += w[i]


@njit(cache=True)
def _accumulate_w_nb(cl, r, wins):
    for i in range(cl.size):
        wins[cl[i], r[i]] += 1


@njit(cache=True)
def _sums_nb(n, w, out):
    for c in range(n.shape[0]):
        for j in range(n.shape[1]):
            x = np.int64(n[c, j])
            if x == 0:
                continue
            y = np.int64(w[c, j])
            out[0, j] += x
            out[1, j] += y
            out[2, j] += y * y
            out[3, j] += y * x
            out[4, j] += x * x


@njit(cache=True)
def _cross_nb(na, wa, nb, wb, out):
    for c in range(na.shape[0]):
        for j in range(na.shape[1]):
            x = np.int64(na[c, j])
            u = np.int64(nb[c, j])
            if x == 0 or u == 0:
                continue
            y = np.int64(wa[c, j])
            v = np.int64(wb[c, j])
            out[0, j] += y * v
            out[1, j] += y * u
            out[2, j] += x * v
            out[3, j] += x * u
