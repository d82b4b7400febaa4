"""Colosseum (2016) in plain Python: a slow, readable oracle for the Numba kernels.

This engine is written from the rulebook (``../shared/rules/colosseum_2016.txt``) and the
readings in ``RULINGS.md`` (cited as R1..R17, S1..S5), reading the same validated data as the
kernels (``game.load_data``: the dicts of ``data/*.toml``; conditions and steps are interpreted
straight from their vocabulary, ``data/VOCABULARY.md``). It shares no code with the kernels
except the random stream's definition (``simulators.common.rng_ref``, the twin of
``rng_nb``): given the same run key and game index it asks for the same random numbers in the
same order, so it must produce the same record, field by field (``enums.record_dt``).
``tests/simulators/test_colosseum_reference.py`` checks that over thousands of games; where
the two disagree, the rulebook decides which one is wrong. It is the one deliberate second
implementation of the rules (the kernels write each rule once, indexed in ``RULINGS.md``,
"Where each rule is written"): an oracle is only independent if it is written apart.

Only the ``random`` strategy is played here (uniform over whatever is legal, one draw per
decision, the same draws as ``strategies.colosseum.builtin.random_nb``). Seat swapping
(``swap_seats``) is not supported.
"""
from __future__ import annotations

import numpy as np

from simulators.colosseum.enums import record_dt
from simulators.common.rng_ref import Stream

DISTANCES = ("SHORT", "MIDDLE", "LONG")  # index = distance; "closer" is a lower index
SHORT, LONG = 0, 2
DICE = ("STR", "DEX", "INT")
ATTRIBUTES = ("STR", "DEX", "INT")
BEATS = {"STR": "DEX", "DEX": "INT", "INT": "STR"}  # the three-way matchup
OD_SLOT = 8  # hand slots: 0..7 the skills in data order, 8 the Overdrive
SETUPS = ("random", "draft", "free")
END_KO, END_DOUBLE_KO, END_TIMEOUT = 0, 1, 2  # record codes (enums.END_*)


class GameOver(Exception):
    """A character reached 0 HP: the game ends at once, later steps do not happen (R9)."""


class Player:
    """One seat: character, Overdrive, HP, hand and the counters the record keeps."""

    def __init__(self):
        self.char = -1  # index into the characters, in data order
        self.od = -1  # index into the Overdrives
        self.hp = 0
        self.max_hp = 0
        self.hand = 0  # bit mask of hand slots (0..7 skills, 8 the Overdrive)
        self.sealed = 0  # bit mask of this player's sealed cards (R16)
        self.aura = False  # TIDE AURA active (R8)
        self.played = -1  # the hand slot revealed this round (-1: none)
        self.od_count = 0  # Overdrive activations (Q2)
        self.od_fails = 0
        self.hits = 0
        self.used = 0  # hand slots played at least once
        self.first_round = 0  # 7 bits per hand slot: the round (1-based, capped at 127) it was first played
        self.aura_rounds = 0
        self.dealt = 0  # damage dealt to the opponent


class Reference:
    """The readable Colosseum engine over validated data (``GameData`` or its ``files`` dict)."""

    def __init__(self, data):
        files = data.files if hasattr(data, "files") else data
        self.rules = files["rules"]
        self.skills = list(files["skills"].values())
        self.chars = list(files["characters"].values())
        self.ods = list(files["overdrives"].values())
        self.die_min = self.rules["die_min"]
        self.die_max = self.rules["die_max"]

    # ------------------------------------------------------------------ small rules
    def kind(self, slot: int) -> str:
        """What a played hand slot is: a skill's attribute or MOVE, OVERDRIVE, or PASS (no card)."""
        if slot < 0:
            return "PASS"
        if slot == OD_SLOT:
            return "OVERDRIVE"
        return self.skills[slot]["attribute"]

    def die(self, name: str) -> int:
        return sum(self.dice.values()) if name == "SUM" else self.dice[name]

    def set_die(self, name: str, value: int) -> None:
        self.dice[name] = min(max(value, self.die_min), self.die_max)  # R14: clamped to the faces

    def adjust_die(self, name: str, by: int) -> None:
        for d in (DICE if name == "ALL" else (name,)):
            self.set_die(d, self.dice[d] + by)

    def card_range(self, p: Player, slot: int) -> set:
        """Distances at which an attribute card of ``p`` hits, TIDE AURA range bonus included."""
        sk = self.skills[slot]
        dists = set(sk["range"])
        if p.aura:
            dists |= set(self.chars[p.char]["tide_aura"]["range_bonus"][sk["attribute"]])
        return {DISTANCES.index(d) for d in dists}

    def in_range(self, p: Player, slot: int, dist: int) -> bool:
        return dist in self.card_range(p, slot)

    def damage_of(self, p: Player, slot: int) -> int:
        """R13: base power x multiplier + TIDE correction of the card's die + base correction
        (+ TIDE AURA power bonus), never below 0."""
        sk = self.skills[slot]
        ch = self.chars[p.char]
        a = sk["attribute"]
        dmg = sk["power"] * ch["power_multiplier"][a] + ch["base_correction"][a]
        if p.aura:
            dmg += ch["tide_aura"]["power_bonus"][a]
        if sk["tide_die"] != "NONE":
            dmg += sk["tide"][self.dice[sk["tide_die"]] - 1]
        return max(dmg, 0)

    def deal(self, source: int, target: int, amount: int) -> None:
        """``source`` deals ``amount`` to ``target``; HP stops at 0 (R15)."""
        if amount <= 0:
            return
        t = self.players[target]
        t.hp = max(t.hp - amount, 0)
        if source != target:
            self.players[source].dealt += amount

    def check_ko(self) -> None:
        """Victory condition: a character at 0 HP ends the game immediately (both: a draw)."""
        a, b = self.players
        if a.hp > 0 and b.hp > 0:
            return
        if a.hp <= 0 and b.hp <= 0:
            self.winner, self.end = -1, END_DOUBLE_KO
        else:
            self.winner, self.end = (0 if b.hp <= 0 else 1), END_KO
        raise GameOver

    # ------------------------------------------------------------------ the vocabulary
    def holds(self, cond: dict, seat: int, dist: int) -> bool:
        """One condition (VOCABULARY.md) for ``seat`` at distance ``dist``."""
        me = self.players[seat]
        them = self.players[1 - seat]
        who = them if cond.get("who") == "opponent" else me
        other = me if who is them else them
        kind = cond["if"]
        if kind == "die_at_least":
            return self.die(cond["die"]) >= cond["value"]
        if kind == "die_at_most":
            return self.die(cond["die"]) <= cond["value"]
        if kind == "all_dice_at_least":
            return all(v >= cond["value"] for v in self.dice.values())
        if kind == "all_dice_at_most":
            return all(v <= cond["value"] for v in self.dice.values())
        if kind == "die_highest":
            v = self.dice[cond["die"]]
            return all(v > self.dice[d] for d in DICE if d != cond["die"])
        if kind == "dice_pair":
            return len(set(self.dice.values())) < 3
        if kind == "distance_in":
            return DISTANCES[dist] in cond["distances"]
        if kind == "hp_at_most":
            return who.hp <= cond["value"]
        if kind == "hp_at_least":
            return who.hp >= cond["value"]
        if kind == "hp_below_opponent":
            return who.hp < other.hp
        if kind == "hp_not_above_opponent":
            return who.hp <= other.hp
        if kind == "opponent_played":
            return self.kind(them.played) in cond["kinds"]
        if kind == "round_at_least":
            return self.round + 1 >= cond["value"]
        if kind == "tide_aura_active":
            return who.aura
        raise AssertionError(kind)

    def all_hold(self, conds: list, seat: int, dist: int) -> bool:
        return all(self.holds(c, seat, dist) for c in conds)

    def run(self, steps: list, seat: int) -> None:
        """Resolve effect steps for ``seat`` in order (VOCABULARY.md)."""
        for st in steps:
            do = st["do"]
            target = seat if st.get("to") == "self" else 1 - seat
            if do == "damage":
                amount = st["amount"]
                if st["tide_die"] != "NONE":
                    amount += st["tide"][self.dice[st["tide_die"]] - 1]
                self.deal(seat, target, amount)
            elif do == "heal":
                t = self.players[target]
                t.hp = max(t.hp, min(t.hp + st["amount"], t.max_hp))  # R15: up to the starting HP
            elif do == "adjust_die":
                self.adjust_die(st["die"], st["by"])
            elif do == "set_die":
                for d in (DICE if st["die"] == "ALL" else (st["die"],)):
                    self.set_die(d, st["value"])
            elif do in ("move", "set_distance"):
                dest = self.dist + st["by"] if do == "move" else DISTANCES.index(st["distance"])
                if SHORT <= dest <= LONG and dest not in self.sealed_dists:
                    self.dist = dest  # Q5: no such distance, or a sealed one: nothing happens
            elif do == "seal_played":
                self.seal(target, self.players[target].played)
            elif do == "seal_distance":
                self.seal_distance(seat)
            else:
                raise AssertionError(do)

    def seal(self, owner: int, slot: int) -> None:
        """R16: a sealed card leaves its owner's hand for the rest of the game."""
        if slot < 0:
            return
        p = self.players[owner]
        p.hand &= ~(1 << slot)
        p.sealed |= 1 << slot

    def seal_distance(self, seat: int) -> None:
        """R16: seal the other (unsealed) distance where the opponent's hand has the most base power
        in range (ties: the closer distance); one range card is sealed at a time."""
        opp = self.players[1 - seat]
        mult = self.chars[opp.char]["power_multiplier"]
        best, best_score = -1, -1
        for d in range(3):
            if d == self.dist or d in self.sealed_dists:
                continue
            score = 0
            for slot, sk in enumerate(self.skills):
                if (opp.hand >> slot) & 1 and sk["attribute"] in ATTRIBUTES and DISTANCES[d] in sk["range"]:
                    score += sk["power"] * mult[sk["attribute"]]
            if score > best_score:
                best, best_score = d, score
        if best >= 0:
            self.sealed_dists = {best}

    # ------------------------------------------------------------------ Overdrives and the TIDE AURA
    def od_stage(self, p: Player) -> int:
        """0-based stage of the next activation: the 4th and later use the 3rd stage (Q2, R12)."""
        return min(p.od_count, 2)

    def od_ready(self, seat: int, dist: int) -> bool:
        """The Overdrive's common and current-stage activation conditions hold at ``dist``."""
        p = self.players[seat]
        od = self.ods[p.od]
        return (self.all_hold(od["common"], seat, dist)
                and self.all_hold(od["stages"][self.od_stage(p)]["when"], seat, dist))

    def exert(self, seat: int) -> None:
        p = self.players[seat]
        stage = self.od_stage(p)
        p.od_count += 1
        self.run(self.ods[p.od]["stages"][stage]["effects"], seat)

    def update_aura(self, seat: int, run_effects: bool) -> None:
        """R8: the aura is active while its conditions hold; an active aura's effects resolve."""
        p = self.players[seat]
        ta = self.chars[p.char]["tide_aura"]
        p.aura = self.all_hold(ta["when"], seat, self.dist)
        if p.aura and run_effects:
            p.aura_rounds += 1
            self.run(ta["effects"], seat)

    # ------------------------------------------------------------------ moves (Process 1)
    def move_destination(self, seat: int, slot: int, d0: int) -> int:
        """Where a MOVE card goes from ``d0``; -1 when there is no such distance or it is sealed (Q5).
        With a free-moving TIDE AURA ("she can change the distance freely", R8) the mover chooses among the open
        distances in the card's direction (the random strategy: one draw, only when there are several)."""
        p = self.players[seat]
        step = self.skills[slot]["move"]
        if p.aura and self.chars[p.char]["tide_aura"]["free_move"]:
            options = [d for d in range(SHORT, LONG + 1) if (d - d0) * step > 0 and d not in self.sealed_dists]
            if not options:
                return -1
            return options[0] if len(options) == 1 else self.rng.bit(sum(1 << d for d in options))
        d = d0 + step
        if d < SHORT or d > LONG or d in self.sealed_dists:
            return -1
        return d

    def combine_moves(self, d0: int, dest0: int, dest1: int) -> int:
        """R5: two valid moves add up (clamped; a sum on a sealed distance leaves it), or cancel."""
        if dest0 >= 0 and dest1 >= 0:
            if self.rules["both_moves"] == "cancel" and (dest0 - d0) * (dest1 - d0) < 0:
                return d0
            nd = min(max(d0 + (dest0 - d0) + (dest1 - d0), SHORT), LONG)
            return d0 if nd in self.sealed_dists else nd
        if dest0 >= 0:
            return dest0
        if dest1 >= 0:
            return dest1
        return d0

    # ------------------------------------------------------------------ one round
    def battle(self, c0: int, c1: int) -> None:
        """The Battle Phase for the revealed hand slots (raises GameOver at a KO)."""
        P = self.players
        cards = (c0, c1)
        for p, c in zip(P, cards):
            p.played = c
            if c >= 0:
                if not (p.used >> c) & 1:
                    p.first_round |= min(self.round + 1, 127) << (7 * c)
                p.used |= 1 << c
        k = (self.kind(c0), self.kind(c1))

        # Process 1: distance adjustment
        d0 = self.dist
        dest = [-1, -1]
        for s in range(2):
            if k[s] == "MOVE":
                dest[s] = self.move_destination(s, cards[s], d0)
        self.dist = self.combine_moves(d0, dest[0], dest[1])

        # Process 2: Overdrive activation
        ready = [k[s] == "OVERDRIVE" and self.od_ready(s, self.dist) for s in range(2)]
        exerted = [False, False]
        same = k[0] == k[1] == "OVERDRIVE" and P[0].od == P[1].od
        if same:
            # R11: neither exerts; satisfied conditions still count as an activation
            for s in range(2):
                if ready[s]:
                    P[s].od_count += 1
        elif ready[0] or ready[1]:
            prio = [self.ods[P[s].od]["priority"] for s in range(2)]
            if ready[0] and ready[1] and prio[0] == prio[1]:
                # R10: equal priority: both exert simultaneously; the game can end only after both
                exerted = [True, True]
                self.exert(0)
                self.exert(1)
                self.check_ko()
            else:
                # R10/Q4: the lower priority resolves first; its seal nullifies the other
                first = 0 if ready[0] and (not ready[1] or prio[0] < prio[1]) else 1
                second = 1 - first
                exerted[first] = True
                self.exert(first)
                self.check_ko()
                if ready[second] and not (P[second].sealed >> OD_SLOT) & 1:
                    exerted[second] = True
                    self.exert(second)
                    self.check_ko()
        # R7: an Overdrive played that neither exerted nor counted failed to activate (nullified by a
        # seal included, Q4). The record's counter: a KO above ends the game before this bookkeeping.
        for s in range(2):
            if k[s] == "OVERDRIVE" and not exerted[s] and not (same and ready[s]):
                P[s].od_fails += 1

        # Process 3: matchup and range (only when no Overdrive exerted)
        hit = [False, False]
        if not any(exerted):
            hit = self.matchup(cards, k, d0, dest, ready)

        # ABILITY of each seat whose card Hit (an exerted Overdrive is a Hit of kind OVERDRIVE), R9
        for s in range(2):
            ab = self.chars[P[s].char]["ability"]
            if (hit[s] and k[s] in ab["on_hit"]) or (exerted[s] and "OVERDRIVE" in ab["on_hit"]):
                if ab["effects"]:
                    self.run(ab["effects"], s)
                    self.check_ko()

        # TIDE AURA: ordinary auras first, late ones (Terry) after the opponent's processing (Q3)
        late = [self.chars[P[s].char]["tide_aura"]["late"] for s in range(2)]
        first = 1 if late[0] and not late[1] else 0
        for s in (first, 1 - first):
            self.update_aura(s, True)
            self.check_ko()

        # end of the round: R1, played cards return to the hand unless sealed (or are spent)
        if not self.rules["cards_return"]:
            for p, c in zip(P, cards):
                if c >= 0:
                    p.hand &= ~(1 << c)
                    if p.hand == 0:
                        p.hand = ((1 << 9) - 1) & ~p.sealed
        for p in P:
            p.played = -1
        self.round += 1

    def matchup(self, cards, k, d0: int, dest, ready) -> list:
        """Process 3 (R2-R4, R6, Q1, Q5): which cards Hit; damage, draws and dice influence."""
        P = self.players
        dist = self.dist
        attr = [k[s] in ATTRIBUTES for s in range(2)]
        valid = [attr[s] and self.in_range(P[s], cards[s], dist) for s in range(2)]
        hit = [False, False]
        if valid[0] and valid[1]:
            if k[0] == k[1]:
                # R3: same attribute: the difference of the two damages goes to the lower side
                x0, x1 = self.damage_of(P[0], cards[0]), self.damage_of(P[1], cards[1])
                if x0 > x1:
                    self.deal(0, 1, x0 - x1)
                elif x1 > x0:
                    self.deal(1, 0, x1 - x0)
            else:
                win = 0 if BEATS[k[0]] == k[1] else 1
                hit[win] = True
        elif valid[0] or valid[1]:
            hit[0 if valid[0] else 1] = True  # R2: the other card failed to activate: it lost
        # R4/R6: a MOVE Hits when the opponent's card would have activated at the old distance
        if dist != d0:
            for s in range(2):
                o = 1 - s
                if k[s] != "MOVE" or dest[s] < 0:
                    continue
                if k[o] in ATTRIBUTES:
                    if self.in_range(P[o], cards[o], d0) and not valid[o]:
                        hit[s] = True
                elif k[o] == "OVERDRIVE" and self.rules["move_hit_vs_overdrive"]:
                    if not ready[o] and self.od_ready(o, d0):
                        hit[s] = True
        if hit[0] or hit[1]:
            # both damages are calculated before either is dealt; a MOVE deals none
            dmg = [self.damage_of(P[s], cards[s]) if hit[s] and attr[s] else 0 for s in range(2)]
            for s in range(2):
                if hit[s]:
                    P[s].hits += 1
                    self.deal(s, 1 - s, dmg[s])
            for s in range(2):  # R14: dice influence after the damage
                sk = self.skills[cards[s]] if hit[s] else None
                if sk is not None and sk["dice_die"] != "NONE":
                    self.adjust_die(sk["dice_die"], sk["dice_by"])
        self.check_ko()
        return hit

    # ------------------------------------------------------------------ setup and a whole game
    def setup(self, setup: str, rng: Stream) -> None:
        n_chars = len(self.chars)
        everyone = (1 << n_chars) - 1
        P = self.players
        if setup == "draft":
            # S5: 3 random characters dealt to each player (disjoint hands), each picks one
            left = everyone
            deals = [0, 0]
            for i in range(6):
                x = rng.bit(left)
                if x < 0:
                    break
                left &= ~(1 << x)
                deals[0 if i < 3 else 1] |= 1 << x
            P[0].char = rng.bit(deals[0])
            P[1].char = rng.bit(deals[1])
        elif setup == "free":
            # S4: a coin decides who picks first; the second cannot take the same character
            first = rng.below(2)
            self.first_pick = first
            P[first].char = rng.bit(everyone)
            P[1 - first].char = rng.bit(everyone & ~(1 << P[first].char))
        else:
            P[0].char = rng.bit(everyone)
            P[1].char = rng.bit(everyone & ~(1 << P[0].char))
        # S1: one set of dice at die_start, adjusted by both characters, clamped
        for d in DICE:
            self.set_die(d, self.rules["die_start"] + sum(self.chars[p.char]["dice_adjust"][d] for p in P))
        for p in P:
            p.hp = p.max_hp = self.chars[p.char]["hp"]
            p.hand = (1 << 9) - 1
        # S3: both choose an Overdrive knowing both characters, neither seeing the other's
        n_ods = (1 << len(self.ods)) - 1
        P[0].od = rng.bit(n_ods)
        P[1].od = rng.bit(n_ods)
        if self.rules["tide_aura_at_start"]:
            for s in range(2):
                self.update_aura(s, False)

    def play(self, key, game: int, setup: str = "random") -> tuple:
        """Play game ``game`` of a run with key ``key`` (random vs random); return its record as a dict
        of the record's columns (``enums.record_dt`` names)."""
        if setup not in SETUPS:
            raise ValueError(f"unknown setup {setup!r}")
        rng = self.rng = Stream(key, game)
        self.players = [Player(), Player()]
        self.dice = {d: 0 for d in DICE}
        self.dist = DISTANCES.index(self.rules["start_distance"])
        self.sealed_dists = set()
        self.round = 0
        self.first_pick = -1
        self.winner, self.end = -1, END_TIMEOUT
        self.setup(setup, rng)
        P = self.players
        try:
            while True:
                if self.round >= self.rules["max_rounds"]:
                    break  # R17: the round cap, a timeout scored as a draw
                # Set Phase: each picks a card from the hand face down (nothing when it is empty)
                c0 = rng.bit(P[0].hand) if P[0].hand else -1
                c1 = rng.bit(P[1].hand) if P[1].hand else -1
                self.battle(c0, c1)
        except GameOver:
            self.round += 1  # a KO ends the game inside its round: count that round
        row = {"game": game, "winner": self.winner, "end_reason": self.end, "rounds": self.round,
               "first_pick": self.first_pick}
        for s, p in enumerate(P):
            row.update({f"char{s}": p.char, f"od{s}": p.od, f"strategy{s}": s, f"hp{s}": p.hp, f"used{s}": p.used,
                        f"first_round{s}": p.first_round, f"sealed{s}": p.sealed, f"od_acts{s}": p.od_count,
                        f"od_fails{s}": p.od_fails, f"hits{s}": p.hits, f"ta_rounds{s}": p.aura_rounds,
                        f"dmg{s}": p.dealt})
        return row


def simulate(data, key, start: int, count: int, setup: str = "random") -> np.ndarray:
    """Records (``record_dt``) of games ``start .. start+count-1``, random vs random."""
    ref = Reference(data)
    out = np.zeros(count, dtype=record_dt)
    rows = [ref.play(key, g, setup) for g in range(start, start + count)]
    missing = set(record_dt.names) - set(rows[0]) if rows else set()
    if missing:  # a column added to the kernels' record must be added here too, or the oracle is blind to it
        raise NotImplementedError(f"the reference engine does not produce the record columns {sorted(missing)}")
    for name in record_dt.names:
        out[name] = [r[name] for r in rows]
    return out
