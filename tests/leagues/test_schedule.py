"""Schedules (leagues/schedule/): league files, who plays whom in which round, and fair games: every seat order at
3-4 player tables, gauntlets, start positions played in every seat order."""

from __future__ import annotations

import json
import subprocess
from collections import Counter
from itertools import combinations, permutations

import pytest
from helpers import BOTS, HEXARENA, ROOT, bot, league_text
from hypothesis import given, settings
from hypothesis import strategies as st

from hexarena.leagues.schedule.config import parse_league
from hexarena.leagues.schedule.openings import check_opening, parse_openings, random_openings, safe_lines
from hexarena.leagues.schedule.games import Entrant, schedule
from hexarena.leagues.schedule.seating import WILLIAMS_4, seat_orders
from hexarena.protocol.errors import ConfigError
from hexarena.referee.record import BoardConfig, GameRecord


def entrants(count: int) -> list[Entrant]:
    return [Entrant(f"bot{i}", f"bot{i}@{i:064x}") for i in range(count)]


def league(players: int = 2, boards: str = '[[boards]]\nsize = "3x3"\n', **fields) -> str:
    lines = ['name = "fair"', f"players = {players}", *(f"{key} = {json.dumps(value)}" for key, value in fields.items())]
    return "\n".join(lines) + "\n" + boards


def test_two_player_ids_are_those_of_before_seat_orders_and_openings():
    games = schedule(parse_league(league(games_per_pairing=4)), entrants(5))
    assert (games[0].id, games[-1].id) == ("8982fe2c28fbd7e0", "f63db7cc9d5f2597")  # computed by the schedule before this change
    assert all(g.opening == () for g in games)


def test_three_players_play_all_six_orders_per_board_per_cycle():
    boards = '[[boards]]\nsize = "3x3"\n[[boards]]\nsize = "2x2"\n'
    games = schedule(parse_league(league(3, boards, games_per_pairing=12)), entrants(4))
    for config in {g.config for g in games}:
        for table in combinations(sorted(f"bot{i}" for i in range(4)), 3):
            played = [g for g in games if g.config == config and sorted(g.seats) == list(table)]
            assert len(played) == 12
            for cycle in (played[:6], played[6:]):
                assert {g.seats for g in cycle} == set(permutations(table))  # every order once a cycle
                assert len({g.seed for g in cycle}) == 1
    assert len(seat_orders(3)) == 6 and len(seat_orders(4)) == 24


def test_four_players_with_a_sample_get_a_balanced_subset_of_orders():
    games = schedule(parse_league(league(4, sample=3)), entrants(6))
    tables = Counter(frozenset(g.seats) for g in games)
    assert len(tables) == 3 and set(tables.values()) == {4}
    for table in tables:
        played = [g.seats for g in games if frozenset(g.seats) == table]
        for name in table:
            assert Counter(seats.index(name) for seats in played) == {0: 1, 1: 1, 2: 1, 3: 1}  # each seat once
        for a, b in permutations(table, 2):
            assert sum(seats.index(a) < seats.index(b) for seats in played) == 2  # a before b in 2 of 4
            assert sum(seats.index(b) == seats.index(a) + 1 for seats in played) == 1  # directly before, once
    assert seat_orders(4, games=8) == WILLIAMS_4 and len(seat_orders(4, games=24)) == 24


def test_a_gauntlet_plays_only_the_tables_of_its_bot():
    games = schedule(parse_league(league(gauntlet="bot2")), entrants(5))
    assert games and all("bot2" in g.seats for g in games)
    assert {frozenset(g.seats) for g in games} == {frozenset({"bot2", f"bot{i}"}) for i in (0, 1, 3, 4)}
    three = schedule(parse_league(league(3, gauntlet=f"bot1@{1:064x}"[:12])), entrants(5))
    assert len({frozenset(g.seats) for g in three}) == 6 and all("bot1" in g.seats for g in three)


@pytest.mark.slow
def test_a_gauntlet_naming_no_participant_is_one_line_and_exit_2(tmp_path):
    path = tmp_path / "g.toml"
    folders = [str(BOTS / "greedy"), str(BOTS / "random")]
    path.write_text(league(participants=folders, gauntlet="mcts"))
    done = subprocess.run([*HEXARENA, "league", "run", str(path), "--home", str(tmp_path / "home")], cwd=ROOT,
                          capture_output=True, text=True, timeout=60)
    last = done.stderr.splitlines()[-1]  # after the workspace's first words: the reference bots registered
    assert done.returncode == 2 and last.startswith(f"hexarena: error: {path}: gauntlet: 'mcts' is not a participant")


def test_random_openings_are_reproducible_legal_and_capture_free():
    config = BoardConfig(size="3x3")
    openings = random_openings(config, 20, "seed")
    assert openings == random_openings(config, 20, "seed") and openings != random_openings(config, 20, "other")
    assert len(set(map(frozenset, openings))) == 20
    rules = config.rules()
    for opening in openings:
        assert 1 <= len(opening) <= 4
        state = rules.start()
        for line in opening:
            assert line in safe_lines(state)  # no capture, no cell given its last-but-one side
            state = state.apply(line).state
        assert all(sum(state.drawn >> side & 1 for side in cell) <= len(cell) - 2 for cell in rules.board.cells)
        assert check_opening(rules, opening) == state


def test_a_league_plays_each_start_position_in_both_seat_orders():
    text = league(boards='[[boards]]\nsize = "3x3"\nopenings = 3\n', seed=4)
    games = schedule(parse_league(text), entrants(3))
    assert games == schedule(parse_league(text), entrants(3))
    assert len(games) == 3 * 3 * 2 and len({g.id for g in games}) == len(games)
    by_position = Counter((g.opening, frozenset(g.seats)) for g in games)
    assert set(by_position.values()) == {2} and len({g.opening for g in games}) == 3
    for opening, pair in by_position:
        orders = {g.seats for g in games if g.opening == opening and frozenset(g.seats) == pair}
        assert orders == {tuple(sorted(pair)), tuple(sorted(pair))[::-1]}


@pytest.mark.parametrize("row, problem", [("3,3", "line 3 is already drawn"), ("99", "line 99 is out of range (0-37)")])
def test_an_openings_file_with_a_bad_line_is_one_line(row, problem):
    with pytest.raises(ConfigError) as error:
        parse_openings(f"1,2\n# a comment\n{row}\n", BoardConfig(size="3x3"), "book.txt")
    assert str(error.value) == f"book.txt: row 3: {problem} on 3x3 hex"


@pytest.mark.slow
def test_a_capturing_line_in_a_league_book_is_one_line(tmp_path):
    rules = BoardConfig(size="1x1").rules()
    sides = rules.board.cells[0]
    (tmp_path / "book.txt").write_text(",".join(map(str, sides)) + "\n")
    path = tmp_path / "x.toml"
    path.write_text(league(boards='[[boards]]\nsize = "1x1"\nopenings = "book.txt"\n'))
    done = subprocess.run([*HEXARENA, "league", "run", str(path), "--home", str(tmp_path / "home")], cwd=ROOT,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and done.stderr.startswith("hexarena: error: ")
    assert f"boards[0].openings: {tmp_path / 'book.txt'}: row 1: line {sides[-1]} captures" in done.stderr


def test_a_records_start_position_replays(make_referee):
    config = BoardConfig(size="2x2")
    opening = random_openings(config, 1, 7)[0]
    record = make_referee().play([bot("greedy"), bot("random")], config, game_id="g", seed=3, prelude=opening)
    assert record.opening == list(opening) and all(move.line not in opening for move in record.moves)
    again = GameRecord.model_validate_json(record.model_dump_json())
    assert again.replay().drawn == config.rules().full
    assert again.replay().outcome().scores == tuple(record.result.scores)
    old = record.model_copy(update={"opening": []})
    assert '"opening"' not in old.model_dump_json()  # records without one serialize as before


@pytest.mark.slow
def test_match_plays_every_seat_order_and_reports_the_difference(tmp_path):
    greedy, random_bot = str(BOTS / "greedy"), str(BOTS / "random")
    out = tmp_path / "games.jsonl"
    done = subprocess.run([*HEXARENA, "match", greedy, random_bot, random_bot, "--size", "1x2", "--time", "1s",
                           "--seed", "1", "--out", str(out)], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    seats = [tuple(GameRecord.model_validate_json(line).seats) for line in out.read_text().splitlines()]
    assert sorted(seats) == sorted(permutations(("greedy", "random", "random#2")))  # all 6 orders
    done = subprocess.run([*HEXARENA, "match", greedy, random_bot, "--size", "2x2", "--time", "1s", "--seed", "1",
                           "--openings", "3", "--out", str(out)], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    records = [GameRecord.model_validate_json(line) for line in out.read_text().splitlines()]
    assert len(records) == 6 and len({tuple(r.opening) for r in records}) == 3
    for one, two in zip(records[::2], records[1::2]):
        assert one.opening == two.opening and one.seats == two.seats[::-1]
    assert done.stdout.splitlines()[-1].startswith("greedy - random: Elo ")
    assert "LOS " in done.stdout.splitlines()[-1] and done.stdout.splitlines()[-1].endswith("(3 pairs)")


@pytest.mark.slow
def test_openings_command_writes_positions_and_replay_shows_them_pre_drawn(tmp_path):
    book = tmp_path / "book.txt"
    done = subprocess.run([*HEXARENA, "openings", "2x2", "--count", "3", "--balanced", "--budget", "5", "--out",
                           str(book)], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    config = BoardConfig(size="2x2")
    positions = parse_openings(book.read_text(), config, "book.txt")
    assert len(positions) == 3 and all("# value" in row for row in book.read_text().splitlines())
    out = tmp_path / "games.jsonl"
    done = subprocess.run([*HEXARENA, "match", str(BOTS / "greedy"), str(BOTS / "random"), "--size", "2x2",
                           "--openings", str(book), "--out", str(out)], cwd=ROOT, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert [tuple(GameRecord.model_validate_json(line).opening) for line in out.read_text().splitlines()] == [
        p for p in positions for _ in range(2)]
    done = subprocess.run([*HEXARENA, "replay", "game1", "--file", str(out), "--delay", "0"], cwd=ROOT,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0].endswith(f"pre-drawn: lines {', '.join(map(str, positions[0]))}")


# ---------------------------------------------------------------- league files


@pytest.mark.parametrize("text, message", [
    ('name = "x"\ncolour = "red"\n[[boards]]\nsize = "3x3"\n', "x.toml:2: unknown key 'colour' (allowed: name,"),
    ('name = "x"\n[[boards]]\nsize = "3x3"\nmisere = "yes"\n', "x.toml:4: boards[0].misere: Input should be a valid boolean"),
    ('name = "x"\n[[boards]]\nsize = "3x3"\n[[boards]]\nsize = "0x4"\n', "x.toml:5: boards[1].size: board size '0x4': rows must be 1-10"),
    ('name = "x"\nplayers = 3\ngames_per_pairing = 4\n[[boards]]\nsize = "3x3"\n', "x.toml:3: games_per_pairing: must be a multiple of 6 with 3 players"),
    ('name = "x"\nfault_policy = "ignore"\n[[boards]]\nsize = "3x3"\n', "x.toml:2: fault_policy: Input should be 'forfeit' or 'substitute', got 'ignore'"),
    ('name = "x"\n', "x.toml: boards is missing"),
    ('name = "x"\ntime_control = "fast"\n[[boards]]\nsize = "3x3"\n', "x.toml:2: time_control: time 'fast' is not a duration"),
    # the adaptive pairing's options, and the analysis and host-stall settings
    ('name = "x"\npairing = "swiss"\n[[boards]]\nsize = "3x3"\n', "x.toml:2: pairing: Input should be 'round-robin' or 'adaptive', got 'swiss'"),
    ('name = "x"\npairing = "adaptive"\nbudget = 0\n[[boards]]\nsize = "3x3"\n', "x.toml:3: budget: Input should be greater than or equal to 1, got 0"),
    ('name = "x"\npairing = "adaptive"\nbudget = "ten"\n[[boards]]\nsize = "3x3"\n', "x.toml:3: budget: Input should be a valid integer, got 'ten'"),
    ('name = "x"\nbudget = 10\n[[boards]]\nsize = "3x3"\n', 'x.toml:2: budget: is for pairing = "adaptive"'),
    ('name = "x"\nleague_budget = 10\n[[boards]]\nsize = "3x3"\n', 'x.toml:2: league_budget: is for pairing = "adaptive"'),
    ('name = "x"\npairing = "adaptive"\nleague_budget = 1\n[[boards]]\nsize = "3x3"\n', "x.toml:3: league_budget: at least 2: an adaptive league plays its tables as seat-swapped pairs of games"),
    ('name = "x"\npairing = "adaptive"\nleague_budget = -1\n[[boards]]\nsize = "3x3"\n', "x.toml:3: league_budget: Input should be greater than or equal to 1, got -1"),
    ('name = "x"\nplayers = 3\npairing = "adaptive"\n[[boards]]\nsize = "3x3"\n', 'x.toml:3: pairing: "adaptive" is for 2-player leagues, this one has players = 3'),
    ('name = "x"\nanalysis_budget = -1\n[[boards]]\nsize = "3x3"\n', "x.toml:2: analysis_budget: Input should be greater than or equal to 0, got -1"),
    ('name = "x"\nanalysis_budget = nan\n[[boards]]\nsize = "3x3"\n', "x.toml:2: analysis_budget: Input should be a finite number, got nan"),
    ('name = "x"\nreplay_host_stalls = "yes"\n[[boards]]\nsize = "3x3"\n', "x.toml:2: replay_host_stalls: Input should be a valid boolean, got 'yes'"),
    ('name = "x"\npublish_logs = "no"\n[[boards]]\nsize = "3x3"\n', "x.toml:2: publish_logs: Input should be a valid boolean, got 'no'"),
])
def test_bad_league_files_are_one_line(text, message):
    with pytest.raises(ConfigError) as error:
        parse_league(text, "x.toml")
    assert str(error.value).startswith(message) and "\n" not in str(error.value)


def test_shipped_league_files_are_valid():
    for path in sorted((ROOT / "leagues").glob("*.toml")):
        league = parse_league(path.read_text(), str(path))
        assert league.configs and all(c.players == league.players for c in league.configs)


# ---------------------------------------------------------------- schedules


def test_two_player_schedule_pairs_every_bot_both_ways_from_the_same_seed():
    league = parse_league(league_text("s", boards=[("3x3", "hex"), ("2x2", "square")], games_per_pairing=4))
    games = schedule(league, entrants(5))
    assert len(games) == 10 * 2 * 4 and len({g.id for g in games}) == len(games)
    for config in league.configs:
        for a, b in combinations([f"bot{i}" for i in range(5)], 2):
            seatings = Counter(g.seats for g in games if g.config == config and set(g.seats) == {a, b})
            assert seatings == {(a, b): 2, (b, a): 2}
    seeds = Counter((g.config, frozenset(g.seats), g.seed) for g in games)
    assert set(seeds.values()) == {2}  # each seed serves a game and its seat-swapped twin
    assert schedule(league, entrants(5)) == games  # deterministic


def test_rounds_interleave_so_partial_results_are_balanced():
    games = schedule(parse_league(league_text("s")), entrants(8))
    assert {g.round for g in games} == set(range(7))  # 8 bots: 7 rounds (circle method)
    for number in range(7):  # each bot plays once a round, in each seat
        in_round = [g for g in games if g.round == number]
        assert Counter(bot for g in in_round for bot in g.seats) == {f"bot{i}": 2 for i in range(8)}
    assert [g.round for g in games] == sorted(g.round for g in games)
    played = Counter(bot for g in games[: len(games) // 2] for bot in g.seats)
    assert max(played.values()) - min(played.values()) <= 2


def test_adding_a_bot_keeps_every_existing_id_and_seed():
    league = parse_league(league_text("s", boards=[("3x3", "hex"), ("3x3", "square")]))
    before, after = schedule(league, entrants(4)), schedule(league, entrants(5))
    old = {g.id: g for g in before}
    new = [g for g in after if g.id not in old]
    assert old.keys() <= {g.id for g in after}
    assert all(g.seed == old[g.id].seed for g in after if g.id in old)
    assert len(new) == 4 * 2 * 2 and all("bot4" in g.seats for g in new)


def test_multiplayer_tables_play_every_rotation_and_samples_are_balanced():
    league = parse_league(league_text("m", players=4, games_per_pairing=4))
    games = schedule(league, entrants(5))
    assert len(games) == 5 * 4  # C(5, 4) tables, four rotations each
    for bot in (f"bot{i}" for i in range(5)):  # noqa: F402 - a name here, not helpers' bot()
        assert Counter(g.seats.index(bot) for g in games if bot in g.seats) == {0: 4, 1: 4, 2: 4, 3: 4}
    sampled = schedule(parse_league(league_text("m", players=3, games_per_pairing=6, sample=30)), entrants(10))
    tables = {frozenset(g.seats) for g in sampled}
    assert len(tables) == 30 and len(sampled) == 180
    meets = Counter(pair for t in tables for pair in combinations(sorted(t), 2))
    assert len(meets) == 45 and max(meets.values()) - min(meets.values()) <= 2  # every pair meets, 2 on average
    plays = Counter(b for t in tables for b in t)
    assert len(plays) == 10 and max(plays.values()) - min(plays.values()) <= 1  # 9 on average


# ---------------------------------------------------------------- what differs between two definitions

@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(["a", "b", "c", "d"]), min_size=2, max_size=4, unique=True),
       st.lists(st.sampled_from(["a", "b", "c", "d"]), min_size=2, max_size=4, unique=True),
       st.sampled_from([2, 4]), st.sampled_from([2, 4]), st.sampled_from(["1s", "300ms", "10s+1s"]))
def test_a_definition_differs_exactly_where_the_files_do(bots_a, bots_b, games_a, games_b, control):
    from hexarena.leagues.schedule.config import differences, parse_league

    def league(bots, games, control="1s"):
        return parse_league(f'name = "x"\nparticipants = {json.dumps(bots)}\ngames_per_pairing = {games}\n'
                            f'time_control = "{control}"\n[[boards]]\nsize = "2x2"\n')

    found = differences(league(bots_a, games_a), league(bots_b, games_b, control))
    expected = [f"bots {', '.join(bots_a)}; this file has {', '.join(bots_b)}"] * (bots_a != bots_b)
    expected += [f"games per pairing {games_a}; this file has {games_b}"] * (games_a != games_b)
    expected += [f"time control 1s; this file has {control}"] * (control != "1s")
    assert found == expected
