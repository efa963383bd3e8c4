/* Full refereed games between random players, driven entirely from C, one for every
 * preset rule set the library has (two or four sides): deployment from JSON and at
 * random, play by index and by notation (through junqi_game_play_as), reactions
 * (海陆空三军棋: the side to act is then the submarine's owner, not the next in turn),
 * a referee time-out, views, per-player event logs, clone, result, record export and
 * replay of the exported record. Usage: game [seed] */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "junqi.h"
#include "check.h"

static uint64_t rng_state;

static uint32_t next_random(void) {
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (uint32_t)(rng_state >> 16);
}

/* Copies the "setup" object out of a player record (it holds no nested braces). */
static char *extract_setup(const char *player_record) {
    const char *key = strstr(player_record, "\"setup\"");
    EXPECT(key != NULL);
    const char *open = strchr(key, '{');
    EXPECT(open != NULL);
    const char *close = strchr(open, '}');
    EXPECT(close != NULL);
    size_t len = (size_t)(close - open) + 1;
    char *out = malloc(len + 1);
    EXPECT(out != NULL);
    memcpy(out, open, len);
    out[len] = '\0';
    return out;
}

/* A legal setup for `side`, made by a random deployment in a scratch game and read
 * back from that side's own player record. */
static char *random_setup(const junqi_rules *rules, junqi_side side, uint64_t seed) {
    junqi_game *scratch = NULL;
    char *record = NULL;
    CHECK(junqi_game_new(rules, 0, &scratch));
    CHECK(junqi_game_deploy_random(scratch, side, seed, NULL));
    CHECK(junqi_game_player_record_json(scratch, side, &record));
    EXPECT(strstr(record, "junqi-player-record/1") != NULL);
    char *setup = extract_setup(record);
    junqi_string_free(record);
    junqi_game_free(scratch);
    return setup;
}

static void expect_same_views(const junqi_game *a, const junqi_game *b,
                              const junqi_side *sides, size_t nsides) {
    for (size_t i = 0; i < nsides; i++) {
        char *va = NULL, *vb = NULL;
        CHECK(junqi_game_view_json(a, sides[i], &va));
        CHECK(junqi_game_view_json(b, sides[i], &vb));
        EXPECT(strcmp(va, vb) == 0);
        junqi_string_free(va);
        junqi_string_free(vb);
    }
}

/* Number of events in a JSON array of events: each has exactly one "type" key. */
static size_t count_events(const char *json) {
    size_t n = 0;
    for (const char *p = strstr(json, "\"type\""); p != NULL; p = strstr(p + 1, "\"type\"")) n++;
    return n;
}

static unsigned popcount(uint32_t m) {
    unsigned n = 0;
    for (; m; m &= m - 1) n++;
    return n;
}

static void play_one(const char *preset, uint64_t seed) {
    junqi_rules *rules = NULL;
    CHECK(junqi_rules_preset(preset, &rules));
    size_t nsides = 0;
    junqi_side sides[4];
    CHECK(junqi_rules_sides(rules, sides, 4, &nsides));
    EXPECT(nsides >= 2 && nsides <= 4);

    junqi_game *game = NULL;
    CHECK(junqi_game_new(rules, seed, &game));
    junqi_side side;
    junqi_phase phase;
    CHECK(junqi_game_to_act(game, &side, &phase));
    if (phase == JUNQI_PHASE_DEPLOY) {
        /* The last side deploys from JSON first (any order is allowed), the rest at
         * random. */
        EXPECT(side == sides[0]);
        char *setup = random_setup(rules, sides[nsides - 1], seed + 1);
        char *report = NULL;
        CHECK(junqi_game_deploy_json(game, sides[nsides - 1], setup, &report));
        EXPECT(strstr(report, "\"deployed\"") != NULL);
        junqi_string_free(report);
        free(setup);
        for (size_t i = 0; i + 1 < nsides; i++) {
            CHECK(junqi_game_to_act(game, &side, &phase));
            EXPECT(phase == JUNQI_PHASE_DEPLOY && side == sides[i]);
            CHECK(junqi_game_deploy_random(game, sides[i], seed + 2 + i, NULL));
        }
    } else {
        /* A rule set that deals the armies (e.g. fanqi) starts with moves. */
        EXPECT(phase == JUNQI_PHASE_MOVE);
        EXPECT(junqi_game_deploy_random(game, sides[0], seed, NULL) == JUNQI_STATUS_WRONG_PHASE);
    }

    size_t space = 0;
    CHECK(junqi_game_action_space(game, &space));
    EXPECT(space > 0);
    uint32_t *ids = malloc(space * sizeof *ids);
    EXPECT(ids != NULL);
    char *report = NULL;

    junqi_game *snapshot = NULL;
    size_t seen[4] = {0, 0, 0, 0}; /* events each player has read */
    for (size_t i = 0; i < nsides; i++) {
        char *events = NULL;
        CHECK(junqi_game_events_json(game, sides[i], 0, &events));
        seen[i] = count_events(events);
        junqi_string_free(events);
    }
    unsigned plies = 0, reactions = 0;
    int reaction_due = 0; /* the last action's report announced a reaction */
    junqi_side mover = JUNQI_SIDE_NONE;
    CHECK(junqi_game_to_act(game, &side, &phase));
    while (phase == JUNQI_PHASE_MOVE || phase == JUNQI_PHASE_REACTION) {
        /* A reaction follows exactly the actions that announce one; the submarine's
         * owner reacts, not the side that attacked it. */
        EXPECT((phase == JUNQI_PHASE_REACTION) == reaction_due);
        if (phase == JUNQI_PHASE_REACTION) {
            EXPECT(side != mover && side != JUNQI_SIDE_NONE);
            reactions++;
        }
        mover = side;
        reaction_due = 0;
        EXPECT(plies < 100000);
        report = NULL;
        if (plies == 3) {
            /* The referee times the side to act out: its turn passes. */
            CHECK(junqi_game_time_out(game, &report));
            EXPECT(strstr(report, "\"timed_out\"") != NULL);
            junqi_string_free(report);
            plies++;
            CHECK(junqi_game_to_act(game, &side, &phase));
            continue;
        }
        size_t n = 0, needed = 0;
        CHECK(junqi_game_legal_action_ids(game, ids, space, &n));
        EXPECT(n > 0);
        EXPECT(junqi_game_legal_action_ids(game, NULL, 0, &needed) ==
               JUNQI_STATUS_BUFFER_TOO_SMALL && needed == n);
        uint32_t id = ids[next_random() % n];

        /* The notation list and the id list agree. */
        char *notation = NULL, *legal = NULL;
        CHECK(junqi_action_print(rules, id, &notation));
        CHECK(junqi_game_legal_actions_json(game, &legal));
        char quoted[64];
        snprintf(quoted, sizeof quoted, "\"%s\"", notation);
        EXPECT(strstr(legal, quoted) != NULL);
        junqi_string_free(legal);
        uint32_t back = 0;
        CHECK(junqi_action_parse(rules, notation, &back));
        EXPECT(back == id);

        if (plies % 2 == 0) {
            CHECK(junqi_game_play_id(game, id, &report));
        } else {
            CHECK(junqi_game_play_as(game, side, notation, &report));
        }
        EXPECT(strstr(report, "\"public\"") != NULL);
        reaction_due = strstr(report, "\"reaction_due\"") != NULL;
        junqi_string_free(report);
        junqi_string_free(notation);
        plies++;

        /* Every player reads the events it has not seen yet (at least this ply's),
         * and now and then its whole view. */
        for (size_t i = 0; i < nsides; i++) {
            char *events = NULL;
            CHECK(junqi_game_events_json(game, sides[i], seen[i], &events));
            size_t fresh = count_events(events);
            EXPECT(fresh > 0);
            seen[i] += fresh;
            junqi_string_free(events);
            if (plies % 50 == 0) {
                char *view = NULL;
                CHECK(junqi_game_view_json(game, sides[i], &view));
                EXPECT(strstr(view, "\"pieces\"") != NULL);
                junqi_string_free(view);
            }
        }
        if (plies == 10) CHECK(junqi_game_clone(game, &snapshot));
        CHECK(junqi_game_to_act(game, &side, &phase));
    }
    EXPECT(phase == JUNQI_PHASE_OVER && side == JUNQI_SIDE_NONE);
    free(ids);
    for (size_t i = 0; i < nsides; i++) {
        char *events = NULL;
        CHECK(junqi_game_events_json(game, sides[i], 0, &events));
        EXPECT(count_events(events) >= seen[i]);
        junqi_string_free(events);
        /* The game is over: every seat's end view shows every piece's kind. */
        char *end = NULL;
        CHECK(junqi_game_end_view_json(game, sides[i], &end));
        EXPECT(strstr(end, "\"pieces\"") != NULL && strstr(end, "\"kind\":null") == NULL);
        junqi_string_free(end);
        /* The seat's log in words from its side: a JSON array of strings ending with
           the result, in English (NULL) and in Chinese. */
        char *words = NULL;
        CHECK(junqi_game_narrate_json(game, sides[i], NULL, &words));
        EXPECT(words[0] == '[' && (strstr(words, "win") != NULL || strstr(words, "lose") != NULL ||
                                   strstr(words, "draw") != NULL));
        if (strstr(words, "\"kind\"") != NULL || strstr(words, "(flag_captured)") != NULL) fprintf(stderr, "%s: %s\n", preset, words);
        EXPECT(strstr(words, "\"kind\"") == NULL && strstr(words, "(flag_captured)") == NULL);
        junqi_string_free(words);
        CHECK(junqi_game_narrate_json(game, sides[i], "zh-CN", &words));
        EXPECT(strstr(words, "胜") != NULL || strstr(words, "赢") != NULL || strstr(words, "输") != NULL ||
               strstr(words, "和棋") != NULL);
        junqi_string_free(words);
        EXPECT_STATUS(JUNQI_STATUS_NULL_POINTER, junqi_game_narrate_json(game, sides[i], NULL, NULL));
        EXPECT_STATUS(JUNQI_STATUS_INVALID_UTF8, junqi_game_narrate_json(game, sides[i], "\xff", &words));
    }

    junqi_result result;
    const char *reason = NULL;
    CHECK(junqi_game_result(game, &result));
    EXPECT(result.over);
    /* A reason newer than this header is JUNQI_END_REASON_OTHER, which has no name. */
    if (junqi_end_reason_name(result.reason, &reason) != JUNQI_STATUS_OK) {
        EXPECT(result.reason == JUNQI_END_REASON_OTHER);
        reason = "other";
    }
    printf("%-13s ", preset);
    if (result.draw) {
        EXPECT(result.winners == 0 && result.winner == JUNQI_SIDE_NONE);
        printf("draw");
    } else {
        if (result.winner != JUNQI_SIDE_NONE) {
            EXPECT(result.winners == (1u << result.winner));
        } else {
            EXPECT(popcount(result.winners) >= 2);
        }
        const char *sep = "";
        for (size_t i = 0; i < nsides; i++) {
            if (result.winners & (1u << sides[i])) {
                const char *winner = NULL;
                CHECK(junqi_side_name(sides[i], &winner));
                printf("%s%s", sep, winner);
                sep = " and ";
            }
        }
        printf(popcount(result.winners) == 1 ? " wins" : " win");
    }
    printf(" (%s) after %u plies", reason, plies);
    if (reactions > 0) printf(", %u reaction%s", reactions, reactions == 1 ? "" : "s");
    printf("\n");

    /* Record export and replay: the replayed game is the same game. */
    char *record = NULL, *again = NULL;
    CHECK(junqi_game_record_json(game, &record));
    EXPECT(strstr(record, "junqi-record/1") != NULL);
    junqi_game *replay = NULL;
    CHECK(junqi_game_from_record(record, &replay));
    CHECK(junqi_game_record_json(replay, &again));
    EXPECT(strcmp(record, again) == 0);
    expect_same_views(game, replay, sides, nsides);
    junqi_result replay_result;
    CHECK(junqi_game_result(replay, &replay_result));
    EXPECT(replay_result.over && replay_result.reason == result.reason &&
           replay_result.winners == result.winners);
    junqi_string_free(again);
    junqi_string_free(record);

    /* Per-player records. */
    for (size_t i = 0; i < nsides; i++) {
        char *mine = NULL;
        CHECK(junqi_game_player_record_json(game, sides[i], &mine));
        EXPECT(strstr(mine, "junqi-player-record/1") != NULL);
        junqi_string_free(mine);
    }

    /* The clone taken at ply 10 went its own way. */
    EXPECT(snapshot != NULL || plies < 10);
    if (snapshot != NULL) {
        junqi_result snap_result;
        CHECK(junqi_game_result(snapshot, &snap_result));
        EXPECT(!snap_result.over || plies == 10);
        char *text = NULL;
        CHECK(junqi_game_view_text(snapshot, sides[0], &text));
        EXPECT(strlen(text) > 0);
        junqi_string_free(text);
    }

    junqi_game_free(snapshot);
    junqi_game_free(replay);
    junqi_game_free(game);
    junqi_rules_free(rules);
}

int main(int argc, char **argv) {
    uint64_t seed = argc > 1 ? strtoull(argv[1], NULL, 10) : 1;
    rng_state = seed * 0x9E3779B97F4A7C15u + 1;
    printf("libjunqi %s, seed %" PRIu64 "\n", junqi_version(), seed);

    /* One game for every preset: ["classic", ...] (names hold no quotes). */
    char *presets = NULL;
    CHECK(junqi_rules_presets(&presets));
    EXPECT(strstr(presets, "\"classic\"") != NULL);
    EXPECT(strstr(presets, "\"siguo\"") != NULL);
    EXPECT(strstr(presets, "\"fanqi\"") != NULL);
    EXPECT(strstr(presets, "\"sanjun-modern\"") != NULL);
    EXPECT(strstr(presets, "\"sanjun-hk\"") != NULL);
    EXPECT(strstr(presets, "\"sanjun-book\"") != NULL);
    EXPECT(strstr(presets, "\"sanjun-forum\"") != NULL);
    unsigned games = 0;
    for (char *p = strchr(presets, '"'); p != NULL; p = strchr(p, '"')) {
        char *end = strchr(p + 1, '"');
        EXPECT(end != NULL);
        *end = '\0';
        play_one(p + 1, seed);
        games++;
        p = end + 1;
    }
    junqi_string_free(presets);
    EXPECT(games >= 7);
    puts("game: ok");
    return 0;
}
