/* Every error path of the C API: each failure has its own status and a message, and a
 * refused call leaves the game unchanged. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "junqi.h"
#include "check.h"

static int failures = 0;

/* The call fails with `want`, and leaves a non-empty message mentioning `needle`. */
#undef EXPECT_STATUS
#define EXPECT_STATUS(want, needle, call)                                            \
    expect_status(__LINE__, #call, (call), (want), (needle))

/* Here a failed expectation is counted and the program goes on. */
#undef EXPECT
#define EXPECT(cond)                                                                 \
    do {                                                                             \
        if (!(cond)) {                                                               \
            fprintf(stderr, "%s:%d: expected %s\n", __FILE__, __LINE__, #cond);      \
            failures++;                                                              \
        }                                                                            \
    } while (0)

static void expect_status(int line, const char *call, junqi_status got, junqi_status want,
                          const char *needle) {
    const char *msg = junqi_last_error_message();
    if (got != want) {
        fprintf(stderr, "line %d: %s -> %s, expected %s (%s)\n", line, call,
                junqi_status_name(got), junqi_status_name(want), msg);
        failures++;
    } else if (msg == NULL || msg[0] == '\0' || (needle && !strstr(msg, needle))) {
        fprintf(stderr, "line %d: %s: message \"%s\" lacks \"%s\"\n", line, call,
                msg ? msg : "(null)", needle ? needle : "");
        failures++;
    } else {
        printf("ok %-28s %s\n", junqi_status_name(got), msg);
    }
}

static char *record_of(const junqi_game *game) {
    char *r = NULL;
    CHECK(junqi_game_record_json(game, &r));
    return r;
}

/* Some id in the action space that is not legal now. */
static uint32_t illegal_id(const junqi_game *game, size_t space) {
    uint32_t *ids = malloc(space * sizeof *ids);
    size_t n = 0;
    CHECK(junqi_game_legal_action_ids(game, ids, space, &n));
    uint32_t candidate = 0;
    for (size_t i = 0; i < n && ids[i] == candidate; i++) candidate++;
    free(ids);
    return candidate;
}

int main(void) {
    junqi_rules *rules = NULL;
    junqi_game *game = NULL;
    char *s = NULL;
    size_t len = 0;
    uint32_t point = 0, id = 0;
    junqi_side side;
    junqi_phase phase;
    junqi_move mv;
    junqi_outcome outcome;
    junqi_resolution resolution;
    junqi_piece_kind kind;
    const char *name = NULL;

    EXPECT(strcmp(junqi_last_error_message(), "") == 0);
    EXPECT(junqi_version() != NULL && strlen(junqi_version()) > 0);
    EXPECT(strcmp(junqi_status_name(JUNQI_STATUS_NOT_YOUR_TURN), "JUNQI_STATUS_NOT_YOUR_TURN") == 0);
    EXPECT(strcmp(junqi_status_name(999), "JUNQI_STATUS_UNKNOWN") == 0);

    /* _free functions accept NULL. */
    junqi_string_free(NULL);
    junqi_rules_free(NULL);
    junqi_game_free(NULL);

    /* NULL pointers. */
    EXPECT_STATUS(JUNQI_STATUS_NULL_POINTER, "name", junqi_rules_preset(NULL, &rules));
    EXPECT_STATUS(JUNQI_STATUS_NULL_POINTER, "rules_out", junqi_rules_preset("classic", NULL));
    EXPECT_STATUS(JUNQI_STATUS_NULL_POINTER, "json_out", junqi_rules_presets(NULL));
    EXPECT_STATUS(JUNQI_STATUS_NULL_POINTER, "rules", junqi_game_new(NULL, 1, &game));
    EXPECT_STATUS(JUNQI_STATUS_NULL_POINTER, "game", junqi_game_to_act(NULL, &side, &phase));
    EXPECT_STATUS(JUNQI_STATUS_NULL_POINTER, "game", junqi_game_play(NULL, "a2-a3", NULL));
    EXPECT_STATUS(JUNQI_STATUS_NULL_POINTER, "json", junqi_game_from_record(NULL, &game));
    EXPECT_STATUS(JUNQI_STATUS_NULL_POINTER, "rules", junqi_resolve(NULL, 0, 0, &outcome));
    EXPECT_STATUS(JUNQI_STATUS_NULL_POINTER, "rules",
                  junqi_resolve_attack(NULL, 0, 0, JUNQI_ATTACK_MOVE, &resolution));
    EXPECT_STATUS(JUNQI_STATUS_NULL_POINTER, "game", junqi_game_obligation(NULL, JUNQI_SIDE_SOUTH, &point));
    EXPECT_STATUS(JUNQI_STATUS_NULL_POINTER, "name_out", junqi_attack_name(JUNQI_ATTACK_MOVE, NULL));
    EXPECT_STATUS(JUNQI_STATUS_NULL_POINTER, "name_out", junqi_side_name(JUNQI_SIDE_SOUTH, NULL));

    /* Unknown names, invalid UTF-8, malformed JSON for rule sets. */
    EXPECT_STATUS(JUNQI_STATUS_UNKNOWN_NAME, "chess", junqi_rules_preset("chess", &rules));
    EXPECT_STATUS(JUNQI_STATUS_INVALID_UTF8, "UTF-8", junqi_rules_preset("\xff\xfe", &rules));
    EXPECT_STATUS(JUNQI_STATUS_INVALID_RULES, "JSON", junqi_rules_from_json("{\"extends\": ", &rules));
    EXPECT_STATUS(JUNQI_STATUS_INVALID_RULES, NULL, junqi_rules_from_json("{\"name\": 1}", &rules));
    EXPECT_STATUS(JUNQI_STATUS_UNKNOWN_NAME, "chess",
                  junqi_rules_from_json("{\"extends\": \"chess\"}", &rules));
    EXPECT_STATUS(JUNQI_STATUS_UNKNOWN_NAME, "up", junqi_side_from_name("up", &side));
    EXPECT_STATUS(JUNQI_STATUS_UNKNOWN_NAME, "general", junqi_piece_kind_from_name("general", &kind));

    /* A rule set from JSON text, and a preset. */
    junqi_rules *custom = NULL;
    CHECK(junqi_rules_from_json(
        "{\"extends\": \"classic\", \"name\": \"classic-3\", \"options\": {\"rail_max_steps\": 3}}",
        &custom));
    CHECK(junqi_rules_name(custom, &s));
    EXPECT(strcmp(s, "classic-3") == 0);
    junqi_string_free(s);
    junqi_rules_free(custom);
    CHECK(junqi_rules_preset("classic", &rules));
    junqi_rules *copy = NULL;
    CHECK(junqi_rules_clone(rules, &copy));
    CHECK(junqi_rules_to_json(copy, &s));
    EXPECT(strstr(s, "\"classic\"") != NULL);
    junqi_string_free(s);
    junqi_rules_free(copy);

    /* Names and enums. */
    CHECK(junqi_side_from_name("North", &side));
    EXPECT(side == JUNQI_SIDE_NORTH);
    CHECK(junqi_piece_kind_from_name("\xe5\xb7\xa5\xe5\x85\xb5", &kind)); /* 工兵 */
    EXPECT(kind == JUNQI_PIECE_KIND_ENGINEER);
    for (int k = 0; k < JUNQI_PIECE_KIND_COUNT; k++) {
        CHECK(junqi_piece_kind_name(k, &name));
        CHECK(junqi_piece_kind_from_name(name, &kind));
        EXPECT((int)kind == k);
    }
    CHECK(junqi_piece_kind_name(JUNQI_PIECE_KIND_DIVISION_COMMANDER, &name));
    EXPECT(strcmp(name, "division_commander") == 0);
    CHECK(junqi_outcome_name(JUNQI_OUTCOME_REPEL, &name));
    EXPECT(strcmp(name, "repel") == 0);
    CHECK(junqi_phase_name(JUNQI_PHASE_MOVE, &name));
    EXPECT(strcmp(name, "move") == 0);
    EXPECT_STATUS(JUNQI_STATUS_OUT_OF_RANGE, "junqi_side", junqi_side_name(4, &name));
    EXPECT_STATUS(JUNQI_STATUS_OUT_OF_RANGE, "junqi_side", junqi_side_name(JUNQI_SIDE_NONE, &name));
    EXPECT_STATUS(JUNQI_STATUS_OUT_OF_RANGE, "junqi_piece_kind",
                  junqi_piece_kind_name(JUNQI_PIECE_KIND_COUNT, &name));
    EXPECT_STATUS(JUNQI_STATUS_OUT_OF_RANGE, "junqi_end_reason",
                  junqi_end_reason_name(JUNQI_END_REASON_NONE, &name));
    CHECK(junqi_attack_name(JUNQI_ATTACK_BOMBARDMENT, &name));
    EXPECT(strcmp(name, "bombardment") == 0);
    EXPECT_STATUS(JUNQI_STATUS_OUT_OF_RANGE, "junqi_attack", junqi_attack_name(4, &name));
    EXPECT_STATUS(JUNQI_STATUS_OUT_OF_RANGE, "junqi_attack", junqi_attack_name(-1, &name));

    /* Combat without a game. */
    CHECK(junqi_resolve(rules, JUNQI_PIECE_KIND_ENGINEER, JUNQI_PIECE_KIND_MINE, &outcome));
    EXPECT(outcome == JUNQI_OUTCOME_WIN);
    CHECK(junqi_resolve(rules, JUNQI_PIECE_KIND_BOMB, JUNQI_PIECE_KIND_COMMANDER, &outcome));
    EXPECT(outcome == JUNQI_OUTCOME_BOTH);
    CHECK(junqi_resolve(rules, JUNQI_PIECE_KIND_COMMANDER, JUNQI_PIECE_KIND_MINE, &outcome));
    EXPECT(outcome == JUNQI_OUTCOME_LOSE);
    CHECK(junqi_resolve(rules, JUNQI_PIECE_KIND_TANK, JUNQI_PIECE_KIND_FLAG, &outcome));
    EXPECT(outcome == JUNQI_OUTCOME_ILLEGAL);
    EXPECT_STATUS(JUNQI_STATUS_OUT_OF_RANGE, "99", junqi_resolve(rules, 99, 0, &outcome));
    EXPECT_STATUS(JUNQI_STATUS_OUT_OF_RANGE, "-1", junqi_resolve(rules, 0, -1, &outcome));
    /* Classic has no ships: a kind outside the army is ILLEGAL, whatever the manner. */
    CHECK(junqi_resolve_attack(rules, JUNQI_PIECE_KIND_GUNBOAT, JUNQI_PIECE_KIND_COMMANDER,
                               JUNQI_ATTACK_BOMBARDMENT, &resolution));
    EXPECT(resolution.outcome == JUNQI_OUTCOME_ILLEGAL && !resolution.attacker_leaves &&
           !resolution.defender_leaves && !resolution.attacker_moves);
    CHECK(junqi_resolve_attack(rules, JUNQI_PIECE_KIND_ENGINEER, JUNQI_PIECE_KIND_MINE,
                               JUNQI_ATTACK_MOVE, &resolution));
    EXPECT(resolution.outcome == JUNQI_OUTCOME_WIN && resolution.defender_leaves &&
           resolution.attacker_moves && !resolution.attacker_leaves);
    EXPECT_STATUS(JUNQI_STATUS_OUT_OF_RANGE, "junqi_attack",
                  junqi_resolve_attack(rules, 0, 0, 4, &resolution));
    EXPECT_STATUS(JUNQI_STATUS_OUT_OF_RANGE, "junqi_attack",
                  junqi_resolve_attack(rules, 0, 0, -1, &resolution));
    EXPECT_STATUS(JUNQI_STATUS_OUT_OF_RANGE, "99",
                  junqi_resolve_attack(rules, 99, 0, JUNQI_ATTACK_MOVE, &resolution));
    EXPECT_STATUS(JUNQI_STATUS_NULL_POINTER, "resolution_out",
                  junqi_resolve_attack(rules, 0, 0, JUNQI_ATTACK_MOVE, NULL));

    /* Points and moves. */
    size_t points = 0, space = 0, army = 0;
    CHECK(junqi_rules_point_count(rules, &points));
    CHECK(junqi_rules_action_space(rules, &space));
    CHECK(junqi_rules_army_size(rules, &army));
    EXPECT(points == 60 && army == 25 && space > 0);
    CHECK(junqi_rules_board_json(rules, &s));
    EXPECT(strstr(s, "\"c6\"") != NULL && strstr(s, "\"railway\"") != NULL);
    junqi_string_free(s);
    EXPECT_STATUS(JUNQI_STATUS_NULL_POINTER, "json_out", junqi_rules_board_json(rules, NULL));
    CHECK(junqi_point_parse(rules, "c6", &point));
    CHECK(junqi_point_print(rules, point, &s));
    EXPECT(strcmp(s, "c6") == 0);
    junqi_string_free(s);
    EXPECT_STATUS(JUNQI_STATUS_UNKNOWN_NAME, "z99", junqi_point_parse(rules, "z99", &point));
    EXPECT_STATUS(JUNQI_STATUS_OUT_OF_RANGE, "1000", junqi_point_print(rules, 1000, &s));
    CHECK(junqi_move_parse(rules, "a2-a6", &mv));
    CHECK(junqi_move_print(rules, mv, &s));
    EXPECT(strcmp(s, "a2-a6") == 0);
    junqi_string_free(s);
    CHECK(junqi_move_id(rules, mv, &id));
    uint32_t id_a2a6 = id;
    junqi_move back;
    CHECK(junqi_move_from_id(rules, id, &back));
    EXPECT(back.from == mv.from && back.to == mv.to);
    EXPECT_STATUS(JUNQI_STATUS_INVALID_NOTATION, "a2a6", junqi_move_parse(rules, "a2a6", &mv));
    EXPECT_STATUS(JUNQI_STATUS_UNKNOWN_NAME, "q1", junqi_move_parse(rules, "a2-q1", &mv));
    EXPECT_STATUS(JUNQI_STATUS_OUT_OF_RANGE, "action space",
                  junqi_move_from_id(rules, (uint32_t)space, &mv));
    junqi_move far = {0, 0};
    CHECK(junqi_point_parse(rules, "a1", &far.from));
    CHECK(junqi_point_parse(rules, "e12", &far.to));
    EXPECT_STATUS(JUNQI_STATUS_INVALID_NOTATION, "a1-e12", junqi_move_id(rules, far, &id));
    junqi_move off = {0, 999};
    EXPECT_STATUS(JUNQI_STATUS_OUT_OF_RANGE, "999", junqi_move_print(rules, off, &s));
    CHECK(junqi_action_parse(rules, "a2-a6", &point));
    EXPECT(point == id_a2a6);
    CHECK(junqi_action_print(rules, id_a2a6, &s));
    EXPECT(strcmp(s, "a2-a6") == 0);
    junqi_string_free(s);
    EXPECT_STATUS(JUNQI_STATUS_INVALID_NOTATION, "a2", junqi_action_parse(rules, "a2", &point));
    EXPECT_STATUS(JUNQI_STATUS_INVALID_NOTATION, "a1-e12", junqi_action_parse(rules, "a1-e12", &point));
    EXPECT_STATUS(JUNQI_STATUS_OUT_OF_RANGE, "action space",
                  junqi_action_print(rules, (uint32_t)space, &s));

    /* A game: wrong phase, sides, setups. */
    CHECK(junqi_game_new(rules, 7, &game));
    EXPECT_STATUS(JUNQI_STATUS_WRONG_PHASE, "deploy", junqi_game_play(game, "a2-a3", NULL));
    EXPECT_STATUS(JUNQI_STATUS_WRONG_PHASE, "deploy", junqi_game_time_out(game, NULL));
    uint32_t team = 0;
    CHECK(junqi_rules_team(rules, JUNQI_SIDE_NORTH, &team));
    EXPECT(team == 1u << JUNQI_SIDE_NORTH);
    EXPECT_STATUS(JUNQI_STATUS_SIDE_NOT_IN_GAME, "east", junqi_rules_team(rules, JUNQI_SIDE_EAST, &team));
    EXPECT_STATUS(JUNQI_STATUS_OUT_OF_RANGE, "junqi_side", junqi_rules_team(rules, 5, &team));
    EXPECT_STATUS(JUNQI_STATUS_SIDE_NOT_IN_GAME, "east",
                  junqi_game_deploy_random(game, JUNQI_SIDE_EAST, 1, NULL));
    EXPECT_STATUS(JUNQI_STATUS_OUT_OF_RANGE, "junqi_side", junqi_game_deploy_random(game, 9, 1, NULL));
    EXPECT_STATUS(JUNQI_STATUS_SIDE_NOT_IN_GAME, "west", junqi_game_view_json(game, JUNQI_SIDE_WEST, &s));
    EXPECT_STATUS(JUNQI_STATUS_SIDE_NOT_IN_GAME, "east",
                  junqi_game_obligation(game, JUNQI_SIDE_EAST, &point));
    EXPECT_STATUS(JUNQI_STATUS_OUT_OF_RANGE, "junqi_side", junqi_game_obligation(game, 7, &point));
    EXPECT_STATUS(JUNQI_STATUS_NULL_POINTER, "point_out",
                  junqi_game_obligation(game, JUNQI_SIDE_SOUTH, NULL));
    point = 0;
    CHECK(junqi_game_obligation(game, JUNQI_SIDE_NORTH, &point)); /* classic: never one */
    EXPECT(point == JUNQI_POINT_NONE);
    EXPECT_STATUS(JUNQI_STATUS_INVALID_SETUP, "JSON",
                  junqi_game_deploy_json(game, JUNQI_SIDE_SOUTH, "{\"a1\": ", NULL));
    EXPECT_STATUS(JUNQI_STATUS_INVALID_UTF8, "UTF-8",
                  junqi_game_deploy_json(game, JUNQI_SIDE_SOUTH, "{\"a1\": \"\xc3\x28\"}", NULL));
    EXPECT_STATUS(JUNQI_STATUS_INVALID_SETUP, NULL,
                  junqi_game_deploy_json(game, JUNQI_SIDE_SOUTH, "[1, 2]", NULL));
    EXPECT_STATUS(JUNQI_STATUS_INVALID_SETUP, "flag",
                  junqi_game_deploy_json(game, JUNQI_SIDE_SOUTH, "{\"a1\": \"flag\"}", NULL));
    EXPECT_STATUS(JUNQI_STATUS_UNKNOWN_NAME, "z9",
                  junqi_game_deploy_json(game, JUNQI_SIDE_SOUTH, "{\"z9\": \"flag\"}", NULL));
    EXPECT_STATUS(JUNQI_STATUS_UNKNOWN_NAME, "general",
                  junqi_game_deploy_json(game, JUNQI_SIDE_SOUTH, "{\"a1\": \"general\"}", NULL));
    EXPECT_STATUS(JUNQI_STATUS_INVALID_SETUP, "outside",
                  junqi_game_deploy_json(game, JUNQI_SIDE_SOUTH, "{\"a12\": \"flag\"}", NULL));
    CHECK(junqi_game_to_act(game, &side, &phase));
    EXPECT(phase == JUNQI_PHASE_DEPLOY && side == JUNQI_SIDE_SOUTH);
    CHECK(junqi_game_deploy_random(game, JUNQI_SIDE_SOUTH, 1, NULL));
    EXPECT_STATUS(JUNQI_STATUS_WRONG_PHASE, "already deployed",
                  junqi_game_deploy_random(game, JUNQI_SIDE_SOUTH, 1, NULL));
    CHECK(junqi_game_to_act(game, &side, &phase));
    EXPECT(phase == JUNQI_PHASE_DEPLOY && side == JUNQI_SIDE_NORTH);
    CHECK(junqi_game_deploy_random(game, JUNQI_SIDE_NORTH, 2, NULL));
    EXPECT_STATUS(JUNQI_STATUS_WRONG_PHASE, "deployment is over",
                  junqi_game_deploy_random(game, JUNQI_SIDE_NORTH, 2, NULL));
    CHECK(junqi_game_to_act(game, &side, &phase));
    EXPECT(phase == JUNQI_PHASE_MOVE && side == JUNQI_SIDE_SOUTH);

    /* Illegal actions and acting out of turn leave the game unchanged. */
    char *before = record_of(game);
    EXPECT_STATUS(JUNQI_STATUS_INVALID_NOTATION, "a2a6", junqi_game_play(game, "a2a6", NULL));
    EXPECT_STATUS(JUNQI_STATUS_INVALID_UTF8, "UTF-8", junqi_game_play(game, "a2-\xff", NULL));
    EXPECT_STATUS(JUNQI_STATUS_UNKNOWN_NAME, "z99", junqi_game_play(game, "a1-z99", NULL));
    EXPECT_STATUS(JUNQI_STATUS_ILLEGAL_ACTION, "a12", junqi_game_play(game, "a1-a12", NULL));
    EXPECT_STATUS(JUNQI_STATUS_ILLEGAL_ACTION, "a12", junqi_game_play(game, "a12-a11", NULL));
    EXPECT_STATUS(JUNQI_STATUS_ILLEGAL_ACTION, NULL,
                  junqi_game_play_id(game, illegal_id(game, space), NULL));
    EXPECT_STATUS(JUNQI_STATUS_OUT_OF_RANGE, "action space",
                  junqi_game_play_id(game, (uint32_t)space, NULL));
    uint32_t ids[1];
    EXPECT_STATUS(JUNQI_STATUS_BUFFER_TOO_SMALL, "buffer",
                  junqi_game_legal_action_ids(game, ids, 1, &len));
    EXPECT(len > 1);
    EXPECT_STATUS(JUNQI_STATUS_NULL_POINTER, "buf", junqi_game_legal_action_ids(game, NULL, 5, &len));
    EXPECT_STATUS(JUNQI_STATUS_NULL_POINTER, "len_out",
                  junqi_game_legal_action_ids(game, ids, 1, NULL));
    /* A legal South move, offered by North. */
    uint32_t *all = malloc(space * sizeof *all);
    CHECK(junqi_game_legal_action_ids(game, all, space, &len));
    CHECK(junqi_move_from_id(rules, all[0], &mv));
    free(all);
    char *legal = NULL;
    CHECK(junqi_move_print(rules, mv, &legal));
    EXPECT_STATUS(JUNQI_STATUS_NOT_YOUR_TURN, "south's turn",
                  junqi_game_play_as(game, JUNQI_SIDE_NORTH, legal, NULL));
    EXPECT_STATUS(JUNQI_STATUS_SIDE_NOT_IN_GAME, "east",
                  junqi_game_play_as(game, JUNQI_SIDE_EAST, legal, NULL));
    char *after = record_of(game);
    EXPECT(strcmp(before, after) == 0);
    junqi_string_free(after);
    junqi_string_free(before);
    CHECK(junqi_game_play_as(game, JUNQI_SIDE_SOUTH, legal, NULL));
    junqi_string_free(legal);

    /* Records: malformed, not a record, does not replay. */
    EXPECT_STATUS(JUNQI_STATUS_INVALID_RECORD, "JSON", junqi_game_from_record("[1,", &game));
    EXPECT_STATUS(JUNQI_STATUS_INVALID_RECORD, "record", junqi_game_from_record("{\"format\": \"x\"}", &game));
    char *record = record_of(game);
    char *tampered = strstr(record, "\"result\": null");
    EXPECT(tampered != NULL);
    if (tampered) {
        /* Claim a result the replay does not reach. */
        const char *claim = "\"result\": {\"winners\": [\"north\"], \"reason\": \"resignation\"}}";
        size_t head = (size_t)(tampered - record);
        char *bad = malloc(head + strlen(claim) + 1);
        memcpy(bad, record, head);
        strcpy(bad + head, claim);
        junqi_game *nothing = NULL;
        EXPECT_STATUS(JUNQI_STATUS_INVALID_RECORD, "replay", junqi_game_from_record(bad, &nothing));
        EXPECT(nothing == NULL);
        free(bad);
    }
    junqi_string_free(record);

    /* Resign and draw; every action after the end is refused. */
    junqi_game *other = NULL;
    CHECK(junqi_game_clone(game, &other));
    CHECK(junqi_game_resign(game, JUNQI_SIDE_SOUTH, &s));
    EXPECT(strstr(s, "\"resigned\"") != NULL);
    junqi_string_free(s);
    junqi_result result;
    CHECK(junqi_game_result(game, &result));
    EXPECT(result.over && result.winner == JUNQI_SIDE_NORTH &&
           result.reason == JUNQI_END_REASON_RESIGNATION);
    CHECK(junqi_game_to_act(game, &side, &phase));
    EXPECT(phase == JUNQI_PHASE_OVER && side == JUNQI_SIDE_NONE);
    EXPECT_STATUS(JUNQI_STATUS_GAME_OVER, "over", junqi_game_play(game, "a2-a3", NULL));
    EXPECT_STATUS(JUNQI_STATUS_GAME_OVER, "over", junqi_game_agree_draw(game, NULL));
    CHECK(junqi_game_agree_draw(other, NULL));
    CHECK(junqi_game_result(other, &result));
    EXPECT(result.over && result.draw && result.reason == JUNQI_END_REASON_AGREEMENT);
    CHECK(junqi_game_result(game, &result));
    EXPECT(result.winner == JUNQI_SIDE_NORTH); /* the clone is independent */
    record = record_of(other);
    junqi_game *replay = NULL;
    CHECK(junqi_game_from_record(record, &replay));
    junqi_string_free(record);
    junqi_game_free(replay);
    junqi_game_free(other);

    /* A panic inside the library: PANIC, then the handle is poisoned. */
    EXPECT_STATUS(JUNQI_STATUS_PANIC, "panicked", junqi_test_panic(NULL));
    EXPECT_STATUS(JUNQI_STATUS_PANIC, "panicked", junqi_test_panic(game));
    EXPECT_STATUS(JUNQI_STATUS_POISONED, "poisoned", junqi_game_to_act(game, &side, &phase));
    EXPECT_STATUS(JUNQI_STATUS_POISONED, "poisoned", junqi_game_view_json(game, JUNQI_SIDE_SOUTH, &s));
    EXPECT_STATUS(JUNQI_STATUS_POISONED, "poisoned", junqi_game_play(game, "a2-a3", NULL));
    EXPECT_STATUS(JUNQI_STATUS_POISONED, "poisoned",
                  junqi_game_obligation(game, JUNQI_SIDE_SOUTH, &point));
    junqi_game_free(game); /* a poisoned game is still freed */
    junqi_rules_free(rules);

    if (failures) {
        fprintf(stderr, "errors: %d failure(s)\n", failures);
        return 1;
    }
    puts("errors: ok");
    return 0;
}
