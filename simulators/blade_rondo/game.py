"""Blade Rondo (base set, Night Theater, Grim Garden): a two-player duel of seven swords.

Rules summary (``../shared/rules/blade_rondo_night_theater.txt`` and
``blade_rondo_grim_garden.txt``; every reading we chose is in ``RULINGS.md``):
each player holds a hand of 7 sword cards for the whole game plus the breathing
cards Heating (Attack +1) and Protection (Defence = the cost X paid); the second
player also gets Pulse (one turn +1 cost) and starts at Attack 1. Life 15, Attack,
Defence and Voltage start at 0. A turn: Voltage +1 (already 9: Burst, lose 1 life),
the gold-coin exchange, attached statuses' and subordinates' start-of-turn
effects; then cards are used one at a time while their total cost stays within
Voltage; then face-up cards go back (Limited ones to the discard pile), the
opponent's face-down responses go back to their hand. Day while the two Voltages
add up to 11 or less, Night from 12. Physical Attack = Attack - Defence, Magic
Attack (X) = X; a face-down Response card answers an opponent's action bearing one
of its symbols, in the opponent's turn, one at a time. An attack follows the 16
steps of GG 5.2. Life 0 loses (Revive may intervene); a turn cap ends a game as a
timeout (draw).

Design (the engine; details in ``enums.py``):
- one int64 *machine* per runner: config, the game's random stream at ``M_RNG``, the
  state (per-turn flags, two seat blocks, 20 card slots, action frames), the tables
  (rules, cards, subordinates, statuses, actions, program rows) and the trace, all at
  fixed offsets. Kernels take a raw ``int64*`` of it; strategies get the array.
- card instances are slots: seat ``p`` owns global slots ``10p .. 10p+9`` (7 swords,
  then Heating, Protection, Pulse). A slot has a card id (= the card number, 61-63 for
  the breathing cards), a zone (hand/front, play area face up or face down, flipped
  response, set area, under a seal, discard) and the seat whose area holds it. Zones
  are mirrored in per-seat bit masks so legal-move masks are a few ANDs.
- card effects are program rows (op, a, b, c, then, else) compiled by this module from
  the vocabulary (``data/VOCABULARY.md``); conditions guard the next ``then`` rows and
  skip ``else`` rows. ``rules_nb.perform_nb`` runs one action (a card use, a
  subordinate's action or a sub-action such as Dazzle or a Carol mode) through the
  attack order: Forge/Alchemy, cost and Sacrifice, continuing negation, the
  responder's face-down cards (the defending seat's strategy decides each), the effect
  rows (attacks through ``effects_nb.attack_nb``: Attack, Defence, base damage, the two
  damage adjustments, Phosphorescence turn player first, life), Add, after-the-attack
  effects, then immediately-after effects (reuse, Dazzle).
- strategies: ``fn(phase, m, seat, mask, params) -> int`` (``simulators.common.strategy``);
  the phases are ``enums.PH_*``: keep a card of a deal, ban, the next card to use or
  END, Protection's X, respond or pass, pay for a negate-unless-pay, Phosphorescence,
  a mode, a target, yes/no for optional steps, the gold-coin exchange. Masks have at
  most 63 bits: deal/ban masks are over card numbers, in-game masks over the seat's
  10 local slots (bit 10: END / pass / none).

Parameters (``data/rules.toml``; ``--override rules.<name>=<value>``):

======================== ====== ======= ==============================================
name                     type   default meaning
======================== ====== ======= ==============================================
start_life               int    15      life at setup
life_cap                 int    15      life never rises above this
param_cap                int    9       Attack/Defence/Voltage dice (permanent changes);
                                        Voltage already at the cap: Burst
day_max_sum              int    11      Day while the sum of both Voltages is at most this
second_attack            int    1       the second player's starting Attack
response_cost            int    1       cost of placing a Response card face down
protection_min           int    1       smallest X for Protection (RULINGS T6)
hand_size / deal         int    7 / 15  hand kept / cards dealt in the draft setups
max_turns                int    60      simulator cap (both players' turns); timeout = draw
phos_consumed            bool   true    a <Phosphorescence> is removed when used (D4)
sealed_attachment_counts bool   false   a card under a Seal still acts (NT 6.2, Ver1.00);
                                        false = GG 6.2 (Ver1.01)
retainer_defence         bool   true    a subordinate's DEF may replace the player's
                                        Defence against Physical Attacks (GG Summon)
======================== ====== ======= ==============================================

Setups (``--setup``; first player by ``--set first=random|1|2``, default random):
``nt`` (default), ``gg``, ``base``: deal 15 of the box's 40 swords (20 kinds x 2), keep 7
(the strategies draft); ``blade_strom``: the same from NT Mixed Play's Blade Strom set;
``custom``: hands from ``--set hand1=...`` / ``--set hand2=...`` (comma-separated names,
numbers or keys; hand2 defaults to hand1) or ``--set deck=FILE.toml`` (``hand1 = [...]``,
``hand2 = [...]``), at most 2 copies of a name; ``nt_first_battle`` / ``gg_first_battle``:
seat 1 gets Maria's 10 cards, seat 2 Sonya's, 7 of them at random; ``*_first_battle_pick``:
the strategies choose the 7; ``gg_mixed``: GG Mixed Play (each seat bans 5 of its 40 and
keeps 7 of the 35 the opponent hands over).
"""
