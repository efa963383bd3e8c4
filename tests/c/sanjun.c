/* 海陆空三军棋 through the C API: random games of every sanjun preset played to the end
 * (handling reactions: the side to act may then differ from the one in turn; and
 * obligations: a repelled plane must move away), the new events in the reports (struck,
 * shot_down, reaction_due, reveal causes), air positions in point and move notation,
 * attacks resolved without a game (junqi_resolve_attack), a constructed reaction in
 * sanjun-book (evade_step), a constructed obligation, and commander capture (an option
 * of the sanjun rules).
 * Usage: sanjun [games per preset] [seed] */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "junqi.h"
#include "check.h"

/* The call fails with `want`. */

static const char *const SANJUN[] = {"sanjun-modern", "sanjun-hk", "sanjun-book",
                                     "sanjun-forum"};

static uint64_t rng_state;

static uint32_t next_random(void) {
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (uint32_t)(rng_state >> 16);
}

/* Number of occurrences of `needle` in `text`. */
static unsigned count(const char *text, const char *needle) {
    unsigned n = 0;
    for (const char *p = strstr(text, needle); p != NULL; p = strstr(p + 1, needle)) n++;
    return n;
}

/* Event counts over all games of a preset. */
struct tally {
    unsigned games, plies, reactions, struck, shot_down, scouted, anti_air, obligations;
};

/* Copies the string value of `"key":"..."` inside the JSON object around `at` into
 * `out` (the objects are flat: no nested braces). */
static void field_of_event(const char *json, const char *at, const char *key, char *out,
                           size_t cap) {
    const char *open = at;
    while (open > json && *open != '{') open--;
    const char *close = strchr(at, '}');
    EXPECT(*open == '{' && close != NULL);
    char pattern[32];
    snprintf(pattern, sizeof pattern, "\"%s\":\"", key);
    const char *v = strstr(open, pattern);
    EXPECT(v != NULL && v < close);
    v += strlen(pattern);
    const char *end = strchr(v, '"');
    EXPECT(end != NULL && (size_t)(end - v) < cap);
    memcpy(out, v, (size_t)(end - v));
    out[end - v] = '\0';
}

/* In a reaction: the legal actions are steps of the submarine named by the report, and
 * only its owner may play; a refused action leaves the game as it was. */
static void check_reaction(junqi_game *game, junqi_side reacting, junqi_side attacker,
                           const char *sub_point, const uint32_t *ids, size_t n) {
    EXPECT(n > 0);
    char *legal = NULL;
    CHECK(junqi_game_legal_actions_json(game, &legal));
    char prefix[24];
    snprintf(prefix, sizeof prefix, "\"%s-", sub_point);
    EXPECT(count(legal, "\"") == 2 * count(legal, prefix)); /* every action starts there */
    junqi_string_free(legal);

    char *first = NULL;
    junqi_rules *rules = NULL;
    CHECK(junqi_game_rules(game, &rules));
    CHECK(junqi_action_print(rules, ids[0], &first));
    EXPECT_STATUS(JUNQI_STATUS_NOT_YOUR_TURN, junqi_game_play_as(game, attacker, first, NULL));
    junqi_string_free(first);
    junqi_rules_free(rules);

    /* An action id that is not one of the steps. */
    uint32_t other = 0;
    for (size_t i = 0; i < n && ids[i] == other; i++) other++;
    EXPECT_STATUS(JUNQI_STATUS_ILLEGAL_ACTION, junqi_game_play_id(game, other, NULL));

    junqi_side side;
    junqi_phase phase;
    CHECK(junqi_game_to_act(game, &side, &phase));
    EXPECT(phase == JUNQI_PHASE_REACTION && side == reacting);
}

/* The plane `side` must move away, or JUNQI_POINT_NONE. */
static uint32_t obligation(const junqi_game *game, junqi_side side) {
    uint32_t point = 0;
    CHECK(junqi_game_obligation(game, side, &point));
    return point;
}

/* With an obligation, every legal action moves the plane on `point`, an air position. */
static void check_obligation(const junqi_game *game, uint32_t point, const uint32_t *ids,
                             size_t n) {
    junqi_rules *rules = NULL;
    CHECK(junqi_game_rules(game, &rules));
    char *name = NULL;
    CHECK(junqi_point_print(rules, point, &name));
    EXPECT(name[strlen(name) - 1] == '^');
    junqi_string_free(name);
    for (size_t i = 0; i < n; i++) {
        junqi_move mv;
        CHECK(junqi_move_from_id(rules, ids[i], &mv));
        EXPECT(mv.from == point);
    }
    junqi_rules_free(rules);
}

static void play_random(const char *preset, uint64_t seed, struct tally *t) {
    junqi_rules *rules = NULL;
    CHECK(junqi_rules_preset(preset, &rules));
    junqi_game *game = NULL;
    CHECK(junqi_game_new(rules, seed, &game));
    CHECK(junqi_game_deploy_random(game, JUNQI_SIDE_SOUTH, seed * 2 + 1, NULL));
    CHECK(junqi_game_deploy_random(game, JUNQI_SIDE_NORTH, seed * 2 + 2, NULL));
    EXPECT(obligation(game, JUNQI_SIDE_SOUTH) == JUNQI_POINT_NONE);
    EXPECT(obligation(game, JUNQI_SIDE_NORTH) == JUNQI_POINT_NONE);

    size_t space = 0;
    CHECK(junqi_game_action_space(game, &space));
    uint32_t *ids = malloc(space * sizeof *ids);
    EXPECT(ids != NULL);

    junqi_side side, mover = JUNQI_SIDE_NONE;
    junqi_phase phase;
    char sub_point[16] = "";
    int reaction_due = 0;
    unsigned plies = 0;
    CHECK(junqi_game_to_act(game, &side, &phase));
    while (phase == JUNQI_PHASE_MOVE || phase == JUNQI_PHASE_REACTION) {
        EXPECT(plies < 20000);
        EXPECT((phase == JUNQI_PHASE_REACTION) == reaction_due);
        size_t n = 0;
        CHECK(junqi_game_legal_action_ids(game, ids, space, &n));
        EXPECT(n > 0);
        if (phase == JUNQI_PHASE_REACTION) {
            EXPECT(side != mover); /* the submarine's owner, not the attacker */
            check_reaction(game, side, mover, sub_point, ids, n);
            t->reactions++;
        } else {
            uint32_t must = obligation(game, side);
            if (must != JUNQI_POINT_NONE) {
                check_obligation(game, must, ids, n);
                t->obligations++;
            }
        }
        mover = side;
        char *report = NULL;
        CHECK(junqi_game_play_id(game, ids[next_random() % n], &report));
        t->struck += count(report, "\"type\":\"struck\"");
        t->shot_down += count(report, "\"type\":\"shot_down\"");
        t->scouted += count(report, "\"cause\":\"scouted\"");
        t->anti_air += count(report, "\"cause\":\"anti_air\"");
        const char *due = strstr(report, "\"type\":\"reaction_due\"");
        reaction_due = due != NULL;
        if (due != NULL) {
            char player[16];
            field_of_event(report, due, "point", sub_point, sizeof sub_point);
            field_of_event(report, due, "player", player, sizeof player);
            junqi_side named;
            CHECK(junqi_side_from_name(player, &named));
            CHECK(junqi_game_to_act(game, &side, &phase));
            EXPECT(phase == JUNQI_PHASE_REACTION && side == named);
        }
        junqi_string_free(report);
        plies++;
        if (plies % 100 == 0) {
            char *text = NULL;
            CHECK(junqi_game_view_text(game, JUNQI_SIDE_NORTH, &text));
            junqi_string_free(text);
        }
        CHECK(junqi_game_to_act(game, &side, &phase));
    }
    EXPECT(phase == JUNQI_PHASE_OVER && side == JUNQI_SIDE_NONE);
    junqi_result result;
    CHECK(junqi_game_result(game, &result));
    EXPECT(result.over && result.reason != JUNQI_END_REASON_NONE);

    /* The record replays to the same game. */
    char *record = NULL, *again = NULL;
    CHECK(junqi_game_record_json(game, &record));
    junqi_game *replay = NULL;
    CHECK(junqi_game_from_record(record, &replay));
    CHECK(junqi_game_record_json(replay, &again));
    EXPECT(strcmp(record, again) == 0);
    junqi_string_free(again);
    junqi_string_free(record);
    junqi_game_free(replay);

    free(ids);
    junqi_game_free(game);
    junqi_rules_free(rules);
    t->games++;
    t->plies += plies;
}

/* Point and move notation with air positions (a trailing caret). */
static void check_notation(void) {
    junqi_rules *rules = NULL;
    CHECK(junqi_rules_preset("sanjun-modern", &rules));
    uint32_t p = 0, id = 0;
    char *text = NULL;
    CHECK(junqi_point_parse(rules, "c7^", &p));
    CHECK(junqi_point_print(rules, p, &text));
    EXPECT(strcmp(text, "c7^") == 0);
    junqi_string_free(text);
    /* A plane's flight, and an anti-aircraft strike from the ground. */
    const char *moves[] = {"a1^-a8^", "c3-c5^"};
    for (size_t i = 0; i < 2; i++) {
        CHECK(junqi_action_parse(rules, moves[i], &id));
        CHECK(junqi_action_print(rules, id, &text));
        EXPECT(strcmp(text, moves[i]) == 0);
        junqi_string_free(text);
    }
    EXPECT_STATUS(JUNQI_STATUS_UNKNOWN_NAME, junqi_point_parse(rules, "c6^^", &p));
    junqi_rules_free(rules);
}

static void check_names(void) {
    const char *name = NULL;
    CHECK(junqi_phase_name(JUNQI_PHASE_REACTION, &name));
    EXPECT(strcmp(name, "reaction") == 0);
    CHECK(junqi_phase_name(JUNQI_PHASE_OVER, &name));
    EXPECT(strcmp(name, "over") == 0);
    CHECK(junqi_end_reason_name(JUNQI_END_REASON_COMMANDER_CAPTURED, &name));
    EXPECT(strcmp(name, "commander_captured") == 0);

    char *presets = NULL;
    CHECK(junqi_rules_presets(&presets));
    for (size_t i = 0; i < 4; i++) {
        char quoted[32];
        snprintf(quoted, sizeof quoted, "\"%s\"", SANJUN[i]);
        EXPECT(strstr(presets, quoted) != NULL);
    }
    junqi_string_free(presets);
}

/* Attacks resolved without a game: the manner decides who leaves and who moves. */
static void check_resolve_attack(void) {
    junqi_rules *rules = NULL;
    CHECK(junqi_rules_preset("sanjun-modern", &rules));
    junqi_resolution r;
    /* A gunboat's bombardment of a commander: the gunboat loses, and nothing happens. */
    CHECK(junqi_resolve_attack(rules, JUNQI_PIECE_KIND_GUNBOAT, JUNQI_PIECE_KIND_COMMANDER,
                               JUNQI_ATTACK_BOMBARDMENT, &r));
    EXPECT(r.outcome == JUNQI_OUTCOME_LOSE);
    EXPECT(!r.attacker_leaves && !r.defender_leaves && !r.attacker_moves);
    /* The same attack made by moving costs the gunboat. */
    CHECK(junqi_resolve_attack(rules, JUNQI_PIECE_KIND_GUNBOAT, JUNQI_PIECE_KIND_COMMANDER,
                               JUNQI_ATTACK_MOVE, &r));
    EXPECT(r.outcome == JUNQI_OUTCOME_LOSE && r.attacker_leaves && !r.defender_leaves);
    /* A fort's strike on a cruiser: the cruiser leaves, the fort stays put. */
    CHECK(junqi_resolve_attack(rules, JUNQI_PIECE_KIND_FORT, JUNQI_PIECE_KIND_CRUISER,
                               JUNQI_ATTACK_STRIKE, &r));
    EXPECT(r.defender_leaves && !r.attacker_leaves && !r.attacker_moves);
    /* A battleship landing onto an infantry wins and moves in. */
    CHECK(junqi_resolve_attack(rules, JUNQI_PIECE_KIND_BATTLESHIP, JUNQI_PIECE_KIND_INFANTRY,
                               JUNQI_ATTACK_MOVE, &r));
    EXPECT(r.outcome == JUNQI_OUTCOME_WIN && r.defender_leaves && r.attacker_moves);
    EXPECT(!r.attacker_leaves);
    /* Whatever the manner, the outcome is junqi_resolve's. */
    for (int a = 0; a < JUNQI_PIECE_KIND_COUNT; a++) {
        for (int d = 0; d < JUNQI_PIECE_KIND_COUNT; d++) {
            junqi_outcome outcome;
            CHECK(junqi_resolve(rules, a, d, &outcome));
            for (int attack = JUNQI_ATTACK_MOVE; attack <= JUNQI_ATTACK_BOMBARDMENT; attack++) {
                CHECK(junqi_resolve_attack(rules, a, d, attack, &r));
                EXPECT(r.outcome == outcome);
                EXPECT(!(r.attacker_moves && r.attacker_leaves));
            }
        }
    }
    const char *names[] = {"move", "flight", "strike", "bombardment"};
    for (int attack = 0; attack < 4; attack++) {
        const char *name = NULL;
        CHECK(junqi_attack_name(attack, &name));
        EXPECT(strcmp(name, names[attack]) == 0);
    }
    junqi_rules_free(rules);
    puts("resolve_attack: ok");
}

/* Setups for the constructed reaction: South's fighter on the airport a1^, North's
 * submarine on the anchorage b9. */
static const char *const SOUTH_SETUP =
    "{\"c1\": \"infantry\", \"d1\": \"flag\", \"e1\": \"tank\", \"f1\": \"company_commander\","
    " \"g1\": \"aa_gun\", \"b2\": \"corps_commander\", \"c2\": \"regiment_commander\","
    " \"d2\": \"missile\", \"e2\": \"platoon_leader\", \"f2\": \"poison_gas\","
    " \"g2\": \"artillery\", \"h2\": \"commander\", \"b3\": \"trap\", \"c3\": \"mine\","
    " \"d3\": \"army_commander\", \"f3\": \"cavalry\", \"g3\": \"division_commander\","
    " \"h3\": \"engineer\", \"b5\": \"bomb\", \"d5\": \"battalion_commander\","
    " \"e5\": \"machine_gun\", \"f5\": \"atomic_cannon\", \"h5\": \"fort\", \"b6\": \"gunboat\","
    " \"d6\": \"destroyer\", \"e6\": \"cruiser\", \"f6\": \"battleship\", \"h6\": \"submarine\","
    " \"a1^\": \"fighter\", \"i1^\": \"recon\"}";
static const char *const NORTH_SETUP =
    "{\"b9\": \"submarine\", \"d9\": \"cruiser\", \"e9\": \"gunboat\", \"f9\": \"destroyer\","
    " \"h9\": \"battleship\", \"b10\": \"artillery\", \"d10\": \"fort\","
    " \"e10\": \"corps_commander\", \"f10\": \"machine_gun\", \"h10\": \"trap\","
    " \"b12\": \"commander\", \"c12\": \"company_commander\", \"d12\": \"missile\","
    " \"f12\": \"cavalry\", \"g12\": \"mine\", \"h12\": \"aa_gun\","
    " \"b13\": \"division_commander\", \"c13\": \"battalion_commander\","
    " \"d13\": \"poison_gas\", \"e13\": \"army_commander\", \"f13\": \"infantry\","
    " \"g13\": \"engineer\", \"h13\": \"bomb\", \"c14\": \"platoon_leader\","
    " \"d14\": \"atomic_cannon\", \"e14\": \"flag\", \"f14\": \"regiment_commander\","
    " \"g14\": \"tank\", \"a14^\": \"fighter\", \"i14^\": \"recon\"}";

static void expect_to_act(const junqi_game *game, junqi_side want_side, junqi_phase want) {
    junqi_side side;
    junqi_phase phase;
    CHECK(junqi_game_to_act(game, &side, &phase));
    EXPECT(side == want_side && phase == want);
}

static void constructed_reaction(void) {
    junqi_rules *rules = NULL;
    CHECK(junqi_rules_preset("sanjun-book", &rules));
    junqi_game *game = NULL;
    CHECK(junqi_game_new(rules, 1, &game));
    CHECK(junqi_game_deploy_json(game, JUNQI_SIDE_SOUTH, SOUTH_SETUP, NULL));
    CHECK(junqi_game_deploy_json(game, JUNQI_SIDE_NORTH, NORTH_SETUP, NULL));
    /* North's submarine sails b9-a9-a8, under the air position a8^. */
    const char *opening[] = {"c1-b1", "b9-a9", "b1-c1", "a9-a8"};
    for (size_t i = 0; i < 4; i++) CHECK(junqi_game_play(game, opening[i], NULL));
    expect_to_act(game, JUNQI_SIDE_SOUTH, JUNQI_PHASE_MOVE);

    /* South's fighter attacks the submarine below a8^: it evades and must step away. */
    char *report = NULL;
    CHECK(junqi_game_play(game, "a1^-a8^", &report));
    EXPECT(strstr(report, "\"outcome\":\"evade\"") != NULL);
    const char *due = strstr(report, "\"type\":\"reaction_due\"");
    EXPECT(due != NULL);
    char field[16];
    field_of_event(report, due, "player", field, sizeof field);
    EXPECT(strcmp(field, "north") == 0);
    field_of_event(report, due, "point", field, sizeof field);
    EXPECT(strcmp(field, "a8") == 0);
    junqi_string_free(report);
    expect_to_act(game, JUNQI_SIDE_NORTH, JUNQI_PHASE_REACTION);

    char *legal = NULL;
    CHECK(junqi_game_legal_actions_json(game, &legal));
    EXPECT(strcmp(legal, "[\"a8-a7\",\"a8-b8\",\"a8-a9\"]") == 0);
    junqi_string_free(legal);
    char *view = NULL;
    CHECK(junqi_game_view_json(game, JUNQI_SIDE_SOUTH, &view));
    EXPECT(strstr(view, "\"phase\":\"reaction\"") != NULL);
    EXPECT(strstr(view, "\"to_act\":\"north\"") != NULL);
    junqi_string_free(view);

    /* Another North piece, or South, may not act now; the game is unchanged. */
    EXPECT_STATUS(JUNQI_STATUS_ILLEGAL_ACTION, junqi_game_play(game, "b12-b11", NULL));
    EXPECT(strstr(junqi_last_error_message(), "must first step away") != NULL);
    EXPECT_STATUS(JUNQI_STATUS_NOT_YOUR_TURN,
                  junqi_game_play_as(game, JUNQI_SIDE_SOUTH, "a8-a7", NULL));
    EXPECT_STATUS(JUNQI_STATUS_WRONG_PHASE,
                  junqi_game_deploy_random(game, JUNQI_SIDE_NORTH, 1, NULL));
    expect_to_act(game, JUNQI_SIDE_NORTH, JUNQI_PHASE_REACTION);

    /* A time-out lets the step lapse (on a copy). */
    junqi_game *copy = NULL;
    CHECK(junqi_game_clone(game, &copy));
    CHECK(junqi_game_time_out(copy, &report));
    EXPECT(strstr(report, "\"timed_out\"") != NULL);
    junqi_string_free(report);
    expect_to_act(copy, JUNQI_SIDE_NORTH, JUNQI_PHASE_MOVE);
    junqi_game_free(copy);

    /* The step; then the turn after South's attack is North's. */
    CHECK(junqi_game_play_as(game, JUNQI_SIDE_NORTH, "a8-b8", &report));
    EXPECT(strstr(report, "\"type\":\"moved\"") != NULL);
    junqi_string_free(report);
    expect_to_act(game, JUNQI_SIDE_NORTH, JUNQI_PHASE_MOVE);

    char *record = NULL;
    CHECK(junqi_game_record_json(game, &record));
    junqi_game *replay = NULL;
    CHECK(junqi_game_from_record(record, &replay));
    expect_to_act(replay, JUNQI_SIDE_NORTH, JUNQI_PHASE_MOVE);
    junqi_string_free(record);
    junqi_game_free(replay);
    junqi_game_free(game);
    junqi_rules_free(rules);
    puts("constructed reaction: ok");
}

/* A repelled recon must move away: South's recon scouts North's trap on h10 from the
 * air (sanjun-modern, the same setups as the reaction). */
static void constructed_obligation(void) {
    junqi_rules *rules = NULL;
    CHECK(junqi_rules_preset("sanjun-modern", &rules));
    junqi_game *game = NULL;
    CHECK(junqi_game_new(rules, 1, &game));
    CHECK(junqi_game_deploy_json(game, JUNQI_SIDE_SOUTH, SOUTH_SETUP, NULL));
    CHECK(junqi_game_deploy_json(game, JUNQI_SIDE_NORTH, NORTH_SETUP, NULL));
    uint32_t h10 = 0;
    CHECK(junqi_point_parse(rules, "h10^", &h10));
    CHECK(junqi_game_play(game, "i1^-i10^", NULL));
    CHECK(junqi_game_play(game, "b12-b11", NULL));
    EXPECT(obligation(game, JUNQI_SIDE_SOUTH) == JUNQI_POINT_NONE);

    char *report = NULL;
    CHECK(junqi_game_play(game, "i10^-h10^", &report));
    EXPECT(strstr(report, "\"outcome\":\"repel\"") != NULL);
    junqi_string_free(report);
    /* The recon stays above the trap and must move away on South's next turn. */
    EXPECT(obligation(game, JUNQI_SIDE_SOUTH) == h10);
    EXPECT(obligation(game, JUNQI_SIDE_NORTH) == JUNQI_POINT_NONE);
    CHECK(junqi_game_play(game, "b11-b12", NULL));
    expect_to_act(game, JUNQI_SIDE_SOUTH, JUNQI_PHASE_MOVE);
    EXPECT(obligation(game, JUNQI_SIDE_SOUTH) == h10);

    size_t space = 0, n = 0;
    CHECK(junqi_game_action_space(game, &space));
    uint32_t *ids = malloc(space * sizeof *ids);
    EXPECT(ids != NULL);
    CHECK(junqi_game_legal_action_ids(game, ids, space, &n));
    EXPECT(n > 0);
    check_obligation(game, h10, ids, n);
    free(ids);
    /* Any other South move is refused, and the game is unchanged. */
    EXPECT_STATUS(JUNQI_STATUS_ILLEGAL_ACTION, junqi_game_play(game, "c1-b1", NULL));
    EXPECT(strstr(junqi_last_error_message(), "must move away") != NULL);
    EXPECT(obligation(game, JUNQI_SIDE_SOUTH) == h10);

    CHECK(junqi_game_play(game, "h10^-i10^", NULL));
    EXPECT(obligation(game, JUNQI_SIDE_SOUTH) == JUNQI_POINT_NONE);
    CHECK(junqi_game_play(game, "b12-b11", NULL));
    CHECK(junqi_game_play(game, "c1-b1", NULL));
    junqi_game_free(game);
    junqi_rules_free(rules);
    puts("constructed obligation: ok");
}

/* With the commander_capture option, losing the commander loses the game: random games
 * until one ends that way. */
static void commander_capture(uint64_t seed) {
    junqi_rules *rules = NULL;
    CHECK(junqi_rules_from_json("{\"extends\": \"sanjun-book\", \"name\": \"book-capture\","
                                " \"options\": {\"commander_capture\": true}}",
                                &rules));
    size_t space = 0;
    CHECK(junqi_rules_action_space(rules, &space));
    uint32_t *ids = malloc(space * sizeof *ids);
    EXPECT(ids != NULL);
    for (unsigned g = 0; g < 200; g++) {
        junqi_game *game = NULL;
        CHECK(junqi_game_new(rules, seed + g, &game));
        CHECK(junqi_game_deploy_random(game, JUNQI_SIDE_SOUTH, seed + g, NULL));
        CHECK(junqi_game_deploy_random(game, JUNQI_SIDE_NORTH, seed + g + 1000, NULL));
        junqi_side side;
        junqi_phase phase;
        CHECK(junqi_game_to_act(game, &side, &phase));
        while (phase != JUNQI_PHASE_OVER) {
            size_t n = 0;
            CHECK(junqi_game_legal_action_ids(game, ids, space, &n));
            EXPECT(n > 0);
            CHECK(junqi_game_play_id(game, ids[next_random() % n], NULL));
            CHECK(junqi_game_to_act(game, &side, &phase));
        }
        junqi_result result;
        CHECK(junqi_game_result(game, &result));
        junqi_game_free(game);
        if (result.reason == JUNQI_END_REASON_COMMANDER_CAPTURED) {
            EXPECT(!result.draw && result.winner != JUNQI_SIDE_NONE);
            printf("commander captured in game %u: ok\n", g + 1);
            free(ids);
            junqi_rules_free(rules);
            return;
        }
    }
    fprintf(stderr, "no game ended with commander_captured\n");
    exit(1);
}

int main(int argc, char **argv) {
    unsigned games = argc > 1 ? (unsigned)strtoul(argv[1], NULL, 10) : 8;
    uint64_t seed = argc > 2 ? strtoull(argv[2], NULL, 10) : 1;
    rng_state = seed * 0x9E3779B97F4A7C15u + 1;
    printf("libjunqi %s, %u games per preset, seed %" PRIu64 "\n", junqi_version(), games,
           seed);
    check_names();
    check_notation();
    check_resolve_attack();
    struct tally all = {0, 0, 0, 0, 0, 0, 0, 0};
    for (size_t i = 0; i < 4; i++) {
        struct tally t = {0, 0, 0, 0, 0, 0, 0, 0};
        for (unsigned g = 0; g < games; g++) play_random(SANJUN[i], seed + g, &t);
        printf("%-13s %u games, %u plies: %u reactions, %u obligations, %u struck, "
               "%u shot down, %u scouted, %u anti-air reveals\n",
               SANJUN[i], t.games, t.plies, t.reactions, t.obligations, t.struck,
               t.shot_down, t.scouted, t.anti_air);
        /* Reactions need evade_step: sanjun-book and sanjun-forum. */
        if (i < 2) EXPECT(t.reactions == 0);
        all.struck += t.struck;
        all.shot_down += t.shot_down;
        all.scouted += t.scouted;
        all.obligations += t.obligations;
    }
    if (games >= 4) {
        EXPECT(all.struck > 0 && all.shot_down > 0 && all.scouted > 0);
        EXPECT(all.obligations > 0); /* a recon that scouts and survives is repelled */
    }
    constructed_reaction();
    constructed_obligation();
    commander_capture(seed);
    puts("sanjun: ok");
    return 0;
}
