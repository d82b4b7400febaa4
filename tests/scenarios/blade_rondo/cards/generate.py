"""Write one scenario file per card (``NN_key.toml``): the card used (or answering) in a small position that
shows its effect. ``tests/simulators/test_blade_rondo_cards.py`` runs every file and checks the effect against
the pinned data. Run ``python tests/scenarios/blade_rondo/cards/generate.py`` after changing a spec below.

A spec: ``doc`` (what the file shows), ``p1``/``p2`` (cards of the 7-card hands besides the fillers),
``start`` (the [start] table as TOML text), ``turns`` (the [[turn]] tables as TOML text), ``first``.
"""
from pathlib import Path

HERE = Path(__file__).resolve().parent
F1 = ["斬撃剣", "イグノコスモス", "闇黒剣", "絶対剣", "ガウラミアズマ", "フレアビスカス", "舞踏剣"]
F2 = ["斬撃剣", "イグノコスモス", "闇黒剣", "絶対剣", "ガウラミアズマ", "フレアビスカス", "舞踏剣"]


def turn(seat, plays="", start=""):
    s = f"[[turn]]\nseat = {seat}\n"
    if start:
        s += f"start = {start}\n"
    if plays:
        s += f"plays = [{plays}]\n"
    return s


def use(card, p1=None, p2=None, x=None):
    parts = [f'card = "{card}"']
    if x is not None:
        parts.append(f"x = {x}")
    ans = []
    if p1:
        ans.append("p1 = [" + ", ".join(f'"{a}"' for a in p1) + "]")
    if p2:
        ans.append("p2 = [" + ", ".join(f'"{a}"' for a in p2) + "]")
    if ans:
        parts.append("answers = { " + ", ".join(ans) + " }")
    return "{ " + ", ".join(parts) + " }"


DAY = "voltage = [4, 4]"  # turn start: 5 + 4 = 9, Day
NIGHT = "voltage = [8, 8]"  # 9 + 8 = 17, Night
SPECS = {
    1: dict(doc="Physical Attack: Attack 3 - Defence 1 = 2.", p1=["斬撃剣"],
            start=f"attack = [3, 0]\ndefence = [0, 1]\n{DAY}", turns=turn(1, '"斬撃剣"')),
    2: dict(doc="Physical Attack, then used again for 1: two attacks of 3 - 1.", p1=["舞踏剣"],
            start=f"attack = [3, 0]\ndefence = [0, 1]\n{DAY}", turns=turn(1, use("舞踏剣", p1=["option:yes", "option:no"]))),
    3: dict(doc="Physical Attack that cannot be answered: B's face-down Pearl is not offered.", p1=["闇黒剣"],
            p2=["霧紡ぎのパール"], start=f"attack = [3, 0]\n{DAY}\nface_down = [{{ seat = 2, card = \"霧紡ぎのパール\" }}]",
            turns=turn(1, '"闇黒剣"')),
    4: dict(doc="Add: Poison attached to B; B loses 1 life at its next turn start.", p1=["お気の毒の刃"],
            start=f"attack = [2, 0]\n{DAY}", turns=turn(1, '"お気の毒の刃"') + turn(2)),
    5: dict(doc="Add: B reveals 3, A chooses one for B's discard pile.", p1=["意志砕きの鉈"],
            start=f"attack = [2, 0]\n{DAY}",
            turns=turn(1, use("意志砕きの鉈", p1=["pick:絶対剣"], p2=["reveal:斬撃剣", "reveal:絶対剣", "reveal:舞踏剣"]))),
    6: dict(doc="Physical Attack ignoring Defence: Attack 4 against Defence 5 deals 4.", p1=["絶対剣"],
            start=f"attack = [4, 0]\ndefence = [0, 5]\n{DAY}", turns=turn(1, '"絶対剣"')),
    7: dict(doc="Magic Attack (1).", p1=["イグノコスモス"], start=DAY, turns=turn(1, '"イグノコスモス"')),
    8: dict(doc="Sacrifice: A receives 3 damage; Magic Attack (3).", p1=["ガウラミアズマ"], start=DAY,
            turns=turn(1, '"ガウラミアズマ"')),
    9: dict(doc="With no sword left in A's hand, Magic Attack (6) (the other six cards sit as coin cards).",
            p1=["フレアビスカス"], start=DAY + "\nattached = [" + ", ".join(
                f'{{ seat = 1, card = "{c}", status = "gold_coin" }}' for c in F1 if c != "フレアビスカス") + "]",
            turns=turn(1, '"フレアビスカス"')),
    10: dict(doc="Magic Attack (X), X = half of B's life 11 rounded up = 6.", p1=["マナティックルピナス"],
             start=f"life = [15, 11]\n{DAY}", turns=turn(1, '"マナティックルピナス"')),
    11: dict(doc="Magic Attack (X), X = B's life: B falls.", p1=["トリビュートリリィ"],
             start="life = [15, 9]\nvoltage = [7, 2]", turns=turn(1, '"トリビュートリリィ"')),
    12: dict(doc="Phosphorescence attached to A.", p1=["燐灯るエチュード"], start=DAY, turns=turn(1, '"燐灯るエチュード"')),
    13: dict(doc="A gains 4 life (10 -> 14).", p1=["慈しむウィスパー"], start=f"life = [10, 15]\n{DAY}",
             turns=turn(1, '"慈しむウィスパー"')),
    14: dict(doc="Attack +2 until the end of the turn: Slashing Sword deals 2 + 2.", p1=["陽光導くカンタータ", "斬撃剣"],
             start=f"attack = [2, 0]\n{DAY}", turns=turn(1, '"陽光導くカンタータ", "斬撃剣"')),
    15: dict(doc="Voltage +1 at the end of the turn (5 -> 6).", p1=["加速するロンド"], start=DAY,
             turns=turn(1, '"加速するロンド"')),
    16: dict(doc="Summon Ox-Man; at A's next turn start Bull Arm: Physical Attack with its Attack.", p1=["猛り狂うカデンツァ"],
             start="voltage = [5, 0]\ndefence = [0, 2]", turns=turn(1, '"猛り狂うカデンツァ"') + turn(2) + turn(1)),
    17: dict(doc="B at 3 life answers: after the attack ends, B revives with 2 life.", p1=["絶対剣"],
             p2=["絶命棄却のダイヤモンド"], start="attack = [5, 0]\nlife = [15, 3]\n" + DAY +
             "\nface_down = [{ seat = 2, card = \"絶命棄却のダイヤモンド\" }]",
             turns=turn(1, use("絶対剣", p2=["respond:絶命棄却のダイヤモンド"]))),
    18: dict(doc="B answers: Defence +3 until the end of the turn; Attack 4 deals 1.", p1=["斬撃剣"], p2=["月光のルチル"],
             start="attack = [4, 0]\n" + DAY + "\nface_down = [{ seat = 2, card = \"月光のルチル\" }]",
             turns=turn(1, use("斬撃剣", p2=["respond:月光のルチル"]))),
    19: dict(doc="B answers: after the attack, the Agate seals Slashing Sword for A; A cannot use it next turn.",
             p1=["斬撃剣"], p2=["封厄のアゲート"],
             start="attack = [2, 0]\n" + DAY + "\nface_down = [{ seat = 2, card = \"封厄のアゲート\" }]",
             turns=turn(1, use("斬撃剣", p2=["respond:封厄のアゲート"]))),
    20: dict(doc="B answers Absolute Sword, which took A's whole cost: A cannot pay, it is negated.", p1=["絶対剣"],
             p2=["霧紡ぎのパール"], start="attack = [4, 0]\n" + DAY + "\nface_down = [{ seat = 2, card = \"霧紡ぎのパール\" }]",
             turns=turn(1, use("絶対剣", p2=["respond:霧紡ぎのパール"]))),
    21: dict(doc="At Night: Physical Attack, Add: 2 more damage (3 - 1 + 2).", p1=["夜想剣"],
             start=f"attack = [3, 0]\ndefence = [0, 1]\n{NIGHT}", turns=turn(1, '"夜想剣"')),
    22: dict(doc="Physical Attack; discarding Protection gives a second one.", p1=["黒の剣"], start=f"attack = [3, 0]\n{DAY}",
             turns=turn(1, use("黒の剣", p1=["option:yes"]))),
    23: dict(doc="B's Defence die 3 -> 2 before the attack (permanent), then 4 - 2 = 2.", p1=["牙城崩しの槍"],
             start=f"attack = [4, 0]\ndefence = [0, 3]\n{DAY}", turns=turn(1, '"牙城崩しの槍"')),
    24: dict(doc="Physical Attack, then Doll Extra performs its actions (two more attacks).", p1=["指揮剣", "切り刻むエキストラ"],
             start=f"attack = [2, 0]\n{DAY}\nsubordinates = [{{ seat = 1, card = \"切り刻むエキストラ\" }}]",
             turns=turn(1, use("指揮剣", p1=["subordinate:切り刻むエキストラ"]))),
    25: dict(doc="By Day: Attack 3 doubled, 6 - 1 = 5.", p1=["逢魔刻の大斧"], start=f"attack = [3, 0]\ndefence = [0, 1]\n{DAY}",
             turns=turn(1, '"逢魔刻の大斧"')),
    26: dict(doc="By Day: Magic Attack (3), Add: Brand on B; B's Cherishing Whisper then gains nothing.",
             p1=["ローズバレット"], p2=["慈しむウィスパー"], start=f"life = [15, 10]\n{DAY}",
             turns=turn(1, '"ローズバレット"') + turn(2, '"慈しむウィスパー"')),
    27: dict(doc="Sacrifice: no Doll in the discard pile, so A's Doll Extra goes there; Magic Attack (4).",
             p1=["グリムスカビオス", "切り刻むエキストラ"],
             start=f"{DAY}\nsubordinates = [{{ seat = 1, card = \"切り刻むエキストラ\" }}]", turns=turn(1, '"グリムスカビオス"')),
    28: dict(doc="At Night: Magic Attack (5), Add: A gains the 5 (8 -> 13).", p1=["ブラッディダリア"],
             start=f"life = [8, 15]\n{NIGHT}", turns=turn(1, '"ブラッディダリア"')),
    29: dict(doc="With 3 Doll subordinates A wins before the attack.", p1=["フィナーリア", "切り刻むエキストラ", "窓辺立つミュージカル",
                                                                    "奔走するバーレスク"],
             start="voltage = [8, 8]\nsubordinates = [{ seat = 1, card = \"切り刻むエキストラ\" }, "
                   "{ seat = 1, card = \"窓辺立つミュージカル\" }, { seat = 1, card = \"奔走するバーレスク\" }]",
             turns=turn(1, '"フィナーリア"', start="{ p1 = [] }")),
    30: dict(doc="Embrace attached to A: Defence +2 with the die at 0.", p1=["包み込むボレロ"], start=DAY,
             turns=turn(1, '"包み込むボレロ"')),
    31: dict(doc="Sacrifice: A receives 2 damage; Attack +1 (permanent).", p1=["高揚するカノン"], start=DAY,
             turns=turn(1, '"高揚するカノン"')),
    32: dict(doc="Alchemy (forced: 4 > Voltage 3): Doll Extra (cost 2) returns to A's hand, the Scherzo costs 2; "
                 "Voltage +1 at the end.",
             p1=["開花するスケルツォ", "切り刻むエキストラ"],
             start="voltage = [2, 4]\nsubordinates = [{ seat = 1, card = \"切り刻むエキストラ\" }]",
             turns=turn(1, '"開花するスケルツォ"')),
    33: dict(doc="Summon Doll Musical: by Day A's Defence +1.", p1=["窓辺立つミュージカル"], start=DAY,
             turns=turn(1, '"窓辺立つミュージカル"')),
    34: dict(doc="Summon Doll Extra; at A's next turn start two Physical Attacks with its Day Attack 1.",
             p1=["切り刻むエキストラ"], start="voltage = [1, 1]", turns=turn(1, '"切り刻むエキストラ"') + turn(2) + turn(1)),
    35: dict(doc="Summon Doll Burlesque; at A's next turn start by Day A gains 2 life.", p1=["奔走するバーレスク"],
             start="voltage = [2, 2]\nlife = [10, 15]", turns=turn(1, '"奔走するバーレスク"') + turn(2) + turn(1)),
    36: dict(doc="Summon Doll Picaresque; at A's next turn start Physical Attack 2, Add: B discards a card.",
             p1=["嘲笑するピカレスク"], start="voltage = [2, 2]",
             turns=turn(1, '"嘲笑するピカレスク"') + turn(2) + turn(1, start='{ p2 = ["discard:舞踏剣"] }')),
    37: dict(doc="B answers: Day and Night swap until the end of the turn; B gains 2 life.", p1=["斬撃剣"],
             p2=["明滅のアレキサンドライト"], start="life = [15, 10]\n" + DAY + "\nface_down = [{ seat = 2, card = \"明滅のアレキサンドライト\" }]",
             turns=turn(1, use("斬撃剣", p2=["respond:明滅のアレキサンドライト"]))),
    38: dict(doc="B answers: the damage of that attack is halved (5 -> 2).", p1=["絶対剣"], p2=["事象透過のアメジスト"],
             start="attack = [5, 0]\n" + DAY + "\nface_down = [{ seat = 2, card = \"事象透過のアメジスト\" }]",
             turns=turn(1, use("絶対剣", p2=["respond:事象透過のアメジスト"]))),
    39: dict(doc="B answers, discards its Doll Extra: damage it receives this turn is -3 (5 -> 2).", p1=["絶対剣"],
             p2=["身代わりのトルマリン", "切り刻むエキストラ"],
             start="attack = [5, 0]\n" + DAY + "\nface_down = [{ seat = 2, card = \"身代わりのトルマリン\" }]\n"
                   "subordinates = [{ seat = 2, card = \"切り刻むエキストラ\" }]",
             turns=turn(1, use("絶対剣", p2=["respond:身代わりのトルマリン", "subordinate:切り刻むエキストラ"]))),
    40: dict(doc="B answers a Support card that took A's whole cost: negated (no life gained).", p1=["慈しむウィスパー"],
             p2=["静寂のクリスタル"], start="life = [10, 15]\nvoltage = [1, 4]\nface_down = [{ seat = 2, card = \"静寂のクリスタル\" }]",
             turns=turn(1, use("慈しむウィスパー", p2=["respond:静寂のクリスタル"]))),
    41: dict(doc="Add: the card goes to A's Set Area as a Gold Coin (1 coin).", p1=["徴税剣"], start=f"attack = [2, 0]\n{DAY}",
             turns=turn(1, '"徴税剣"')),
    42: dict(doc="Physical Attack; A discards its Doll Extra for a second one.", p1=["絢爛剣", "切り刻むエキストラ"],
             start=f"attack = [3, 0]\n{DAY}\nsubordinates = [{{ seat = 1, card = \"切り刻むエキストラ\" }}]",
             turns=turn(1, use("絢爛剣", p1=["subordinate:切り刻むエキストラ"]))),
    43: dict(doc="Add: A's Magic actions cost 1 less: Igno Cosmos costs 0.", p1=["紋章剣", "イグノコスモス"],
             start=f"attack = [2, 0]\n{DAY}", turns=turn(1, '"紋章剣", "イグノコスモス"')),
    44: dict(doc="Add: A pays 1 more for Dazzle, Magic Attack (3).", p1=["魔導剣"], start=f"attack = [2, 0]\n{DAY}",
             turns=turn(1, use("魔導剣", p1=["option:yes"]))),
    45: dict(doc="Add: B chooses a card of its hand and discards it.", p1=["骨響きの鉈"], start=f"attack = [2, 0]\n{DAY}",
             turns=turn(1, use("骨響きの鉈", p2=["discard:イグノコスモス"]))),
    46: dict(doc="Attack doubled: 3 x 2 - 1 = 5 (Day or Night).", p1=["重撃剣"],
             start="attack = [3, 0]\ndefence = [0, 1]\nvoltage = [5, 5]", turns=turn(1, '"重撃剣"')),
    47: dict(doc="By Day: Magic Attack (2).", p1=["ルミノブーケット"], start=DAY, turns=turn(1, '"ルミノブーケット"')),
    48: dict(doc="Magic Attack (1); this turn A's Physical Attacks deal +1: Slashing Sword 2 + 1.",
             p1=["クロウリーシラン", "斬撃剣"], start=f"attack = [2, 0]\n{DAY}", turns=turn(1, '"クロウリーシラン", "斬撃剣"')),
    49: dict(doc="Forge X = 1; Magic Attack (2), Add: B's Doll Extra (cost 2 <= 1 + 1) goes to the discard pile.",
             p1=["ディスペルワイス"], p2=["切り刻むエキストラ"],
             start=f"{DAY}\nsubordinates = [{{ seat = 2, card = \"切り刻むエキストラ\" }}]",
             turns=turn(1, use("ディスペルワイス", x=1))),
    50: dict(doc="Magic Attack (X), X = 1 + the 2 cards in B's Set Area = 3.", p1=["パイロガーランド"],
             p2=["切り刻むエキストラ", "窓辺立つミュージカル"],
             start=f"{DAY}\nsubordinates = [{{ seat = 2, card = \"切り刻むエキストラ\" }}, {{ seat = 2, card = \"窓辺立つミュージカル\" }}]",
             turns=turn(1, '"パイロガーランド"')),
    51: dict(doc="Choose Surge: Attack +1.", p1=["満ち溢れるキャロル"], start=DAY,
             turns=turn(1, use("満ち溢れるキャロル", p1=["mode:surge"]))),
    52: dict(doc="Summon the March Drummer: A's Attack +1 while in play; its DEF 1 against Physical Attacks.",
             p1=["駆り立てるマーチ"], start=DAY, turns=turn(1, '"駆り立てるマーチ"')),
    53: dict(doc="Summon the Falsetto Shrieker; at A's next turn start Magic Attack (2).", p1=["喚き立てるファルセット"],
             start="voltage = [3, 3]", turns=turn(1, '"喚き立てるファルセット"') + turn(2) + turn(1)),
    54: dict(doc="Summon the Shade; at A's next turn start it attacks with A's Attack (3).", p1=["残響するノクターン"],
             start="attack = [3, 0]\nvoltage = [2, 2]", turns=turn(1, '"残響するノクターン"') + turn(2) + turn(1)),
    55: dict(doc="Summon the Rhapsody Sprite: A's Magic Attacks deal +1 (Igno Cosmos 1 + 1).", p1=["振り撒くラプソディー", "イグノコスモス"],
             start=DAY, turns=turn(1, '"振り撒くラプソディー", "イグノコスモス"')),
    56: dict(doc="Summon the Scream; at A's next turn start it chooses Rend: Physical Attack 9 - 2.", p1=["存在穿つスクリーム"],
             start="voltage = [6, 0]\ndefence = [0, 2]", turns=turn(1, '"存在穿つスクリーム"') + turn(2) +
             turn(1, start='{ p1 = ["mode:rend"] }')),
    57: dict(doc="B answers A's second Physical action: negated (Physical used already), then Physical is locked.",
             p1=["斬撃剣", "舞踏剣"], p2=["迷い道のトパーズ"],
             start="attack = [3, 0]\n" + DAY + "\nface_down = [{ seat = 2, card = \"迷い道のトパーズ\" }]",
             turns=turn(1, '"斬撃剣", ' + use("舞踏剣", p2=["respond:迷い道のトパーズ"]) + ', "闇黒剣"')),
    58: dict(doc="B answers with A's Voltage at 5: A's subordinates' effects and every attack are negated this turn.",
             p1=["斬撃剣"], p2=["聖域のフローライト"],
             start="attack = [3, 0]\n" + DAY + "\nface_down = [{ seat = 2, card = \"聖域のフローライト\" }]",
             turns=turn(1, use("斬撃剣", p2=["respond:聖域のフローライト"]) + ', "闇黒剣"')),
    59: dict(doc="B answers: that attack deals 2 less and its Add is ignored (no Poison).", p1=["お気の毒の刃"],
             p2=["断絶のラピスラズリ"], start="attack = [5, 0]\n" + DAY + "\nface_down = [{ seat = 2, card = \"断絶のラピスラズリ\" }]",
             turns=turn(1, use("お気の毒の刃", p2=["respond:断絶のラピスラズリ"]))),
    60: dict(doc="B answers a Magic action: negated.", p1=["イグノコスモス"], p2=["因果検閲のサファイア"],
             start=DAY + "\nface_down = [{ seat = 2, card = \"因果検閲のサファイア\" }]",
             turns=turn(1, use("イグノコスモス", p2=["respond:因果検閲のサファイア"]))),
    61: dict(doc="Heating: Attack +1 (permanent).", p1=[], start=DAY, turns=turn(1, '"加熱法"')),
    62: dict(doc="Protection with X = 3: Defence becomes 3 (it sets, from 5).", p1=[], start=f"defence = [5, 0]\n{DAY}",
             turns=turn(1, use("加護法", x=3))),
    63: dict(doc="Pulse (seat 1 moves second, so it has Pulse): 1 more cost this turn.", p1=[], first=2,
             start="voltage = [4, 4]", turns=turn(2) + turn(1, '"鼓動法"')),
}


def hand(extra, filler):
    out = list(extra)
    for c in filler:
        if len(out) == 7:
            break
        if out.count(c) < 2 and c not in out:
            out.append(c)
    return out


def main():
    import tomllib

    base = tomllib.loads((HERE.parents[2] / "data" / "blade_rondo" / "base.toml").read_text(encoding="utf-8"))
    names = {}
    for f in ("base", "night_theater", "grim_garden", "breathing"):
        for key, c in tomllib.loads((HERE.parents[2] / "data" / "blade_rondo" / f"{f}.toml").read_text(
                encoding="utf-8")).items():
            names[c["no"]] = (key, c["name_ja"], c["name"])
    del base
    for no, s in SPECS.items():
        key, ja, en = names[no]
        h1 = hand(s.get("p1", []), F1)
        h2 = hand(s.get("p2", []), F2)
        text = (f"# No.{no} {ja} {en}: {s['doc']}\n# Written by generate.py; the check is in tests/simulators/test_blade_rondo_cards.py.\n"
                f"game = \"blade_rondo\"\ndata = \"../../../data/blade_rondo\"\nfirst = {s.get('first', 1)}\n"
                f"hands = [{h1!r}, {h2!r}]\n".replace("'", '"') + f"\n[start]\n{s['start']}\n\n{s['turns']}")
        (HERE / f"{no:02d}_{key}.toml").write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
