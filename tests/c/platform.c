/* The platform layer from C: levels, escapes (two and four players) and the ledger that
 * scores a finished game (docs/sources.md#qq-rules), with its errors, and our Elo ratings
 * (unequal ratings, four-player team means) against values worked by hand. Usage: platform */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "junqi.h"
#include "check.h"

/* The status of a call that must fail, with a message. */
#define FAILS(call, status)                                                          \
    do {                                                                             \
        junqi_status st_ = (call);                                                   \
        if (st_ != (status)) {                                                       \
            fprintf(stderr, "%s:%d: %s -> %s, expected %s: %s\n", __FILE__, __LINE__, \
                    #call, junqi_status_name(st_), junqi_status_name(status),        \
                    junqi_last_error_message());                                     \
            exit(1);                                                                 \
        }                                                                            \
        EXPECT(strlen(junqi_last_error_message()) > 0);                              \
    } while (0)

static void expect_level(int64_t points, const char *name) {
    char *json = NULL;
    CHECK(junqi_platform_level_for(points, &json));
    if (strstr(json, name) == NULL) {
        fprintf(stderr, "level_for(%lld) = %s, expected %s\n", (long long)points, json, name);
        exit(1);
    }
    junqi_string_free(json);
}

/* The new rating of `side` in a platform_score answer: the number after the first
 * "rating": that follows the seat's "side":"SIDE" (its "level" and "rating_before" come
 * first). */
static double rating_of(const char *scores, const char *side) {
    char key[40];
    snprintf(key, sizeof key, "\"side\":\"%s\"", side);
    const char *seat = strstr(scores, key);
    const char *rating = seat == NULL ? NULL : strstr(seat, "\"rating\":");
    if (rating == NULL) {
        fprintf(stderr, "no rating for %s in %s\n", side, scores);
        exit(1);
    }
    return strtod(rating + strlen("\"rating\":"), NULL);
}

/* Scores `request` with `rules` and checks each seat's new rating to 1e-6; `want` is
 * {side, rating} pairs, `n` of them. */
struct rating { const char *side; double rating; };
static void expect_ratings(const junqi_rules *rules, const char *request, const struct rating *want, size_t n,
                           const char *label) {
    char *scores = NULL;
    CHECK(junqi_platform_score(rules, request, &scores));
    for (size_t i = 0; i < n; i++) {
        double got = rating_of(scores, want[i].side);
        if (got - want[i].rating > 1e-6 || want[i].rating - got > 1e-6) {
            fprintf(stderr, "%s: %s rated %.10f, expected %.10f: %s\n", label, want[i].side, got, want[i].rating,
                    scores);
            exit(1);
        }
    }
    junqi_string_free(scores);
}

static junqi_game *deployed(const char *preset, const junqi_side *sides, size_t n) {
    junqi_rules *rules = NULL;
    junqi_game *game = NULL;
    CHECK(junqi_rules_preset(preset, &rules));
    CHECK(junqi_game_new(rules, 1, &game));
    for (size_t i = 0; i < n; i++) CHECK(junqi_game_deploy_random(game, sides[i], 10 + i, NULL));
    junqi_rules_free(rules);
    return game;
}

int main(void) {
    /* Levels: 小兵 from 0 … 司令 from 12 750. */
    expect_level(-5, "\"小兵\"");
    expect_level(49, "\"副排长\"");
    expect_level(50, "\"排长\"");
    expect_level(12750, "\"司令\"");
    FAILS(junqi_platform_level_for(3, NULL), JUNQI_STATUS_NULL_POINTER);

    /* Two players: North escapes, South wins. */
    junqi_side two[] = {JUNQI_SIDE_SOUTH, JUNQI_SIDE_NORTH};
    junqi_game *game = deployed("classic", two, 2);
    FAILS(junqi_game_platform_score(game, "[]", &(char *){NULL}), JUNQI_STATUS_WRONG_PHASE);
    char *report = NULL;
    CHECK(junqi_game_escape(game, JUNQI_SIDE_NORTH, &report));
    EXPECT(strstr(report, "\"escaped\"") != NULL);
    junqi_string_free(report);
    junqi_result result;
    CHECK(junqi_game_result(game, &result));
    EXPECT(result.over && result.winner == JUNQI_SIDE_SOUTH && result.reason == JUNQI_END_REASON_ESCAPE);
    FAILS(junqi_game_escape(game, JUNQI_SIDE_SOUTH, NULL), JUNQI_STATUS_GAME_OVER);
    /* Ended at ply 0, within 30: the winner scores 0, the loser -1. */
    char *scores = NULL;
    CHECK(junqi_game_platform_score(
        game, "[{\"side\": \"south\", \"points\": 49}, {\"side\": \"north\", \"points\": 10}]", &scores));
    EXPECT(strstr(scores, "\"rule\":\"quick_win\"") != NULL);
    EXPECT(strstr(scores, "\"rule\":\"loss\",\"points_before\":10,\"delta\":-1,\"points\":9") != NULL);
    junqi_string_free(scores);
    FAILS(junqi_game_platform_score(game, "[{\"side\": \"south\", \"points\": 1}]", &scores),
          JUNQI_STATUS_INVALID_RESULT);
    FAILS(junqi_game_platform_score(game, "{\"side\": 1}", &scores), JUNQI_STATUS_INVALID_JSON);
    FAILS(junqi_game_platform_score(game, "[", &scores), JUNQI_STATUS_INVALID_JSON);
    FAILS(junqi_game_platform_score(game, NULL, &scores), JUNQI_STATUS_NULL_POINTER);
    junqi_game_free(game);

    /* Four players, both enemies still in: nobody wins, nobody scores. */
    junqi_side four[] = {JUNQI_SIDE_SOUTH, JUNQI_SIDE_EAST, JUNQI_SIDE_NORTH, JUNQI_SIDE_WEST};
    game = deployed("siguo", four, 4);
    FAILS(junqi_game_escape(game, 7, NULL), JUNQI_STATUS_OUT_OF_RANGE);
    CHECK(junqi_game_escape(game, JUNQI_SIDE_EAST, NULL));
    CHECK(junqi_game_result(game, &result));
    EXPECT(result.over && result.draw && result.reason == JUNQI_END_REASON_ESCAPE);
    junqi_game_free(game);

    /* The ledger from a stored result: four players, 41 plies, +2/-2 per seat, and the
     * 50-point rule for a winner above 50 against an opponent below 50. */
    junqi_rules *siguo = NULL;
    CHECK(junqi_rules_preset("siguo", &siguo));
    const char *request =
        "{\"result\": {\"winners\": [\"south\", \"north\"], \"reason\": \"flag_captured\"},"
        " \"plies\": 41, \"seats\": [{\"side\": \"south\", \"points\": 60},"
        " {\"side\": \"east\", \"points\": 49}, {\"side\": \"north\", \"points\": 0},"
        " {\"side\": \"west\", \"points\": 100, \"rating\": 1600}]}";
    CHECK(junqi_platform_score(siguo, request, &scores));
    EXPECT(strstr(scores, "\"side\":\"south\",\"rule\":\"protected\",\"points_before\":60,\"delta\":0") != NULL);
    EXPECT(strstr(scores, "\"side\":\"north\",\"rule\":\"win\",\"points_before\":0,\"delta\":2,\"points\":2") != NULL);
    EXPECT(strstr(scores, "\"side\":\"west\",\"rule\":\"loss\",\"points_before\":100,\"delta\":-2,\"points\":98") != NULL);
    junqi_string_free(scores);
    FAILS(junqi_platform_score(siguo, "{\"plies\": 3}", &scores), JUNQI_STATUS_INVALID_JSON);
    FAILS(junqi_platform_score(siguo, "{\"result\": null, \"plies\": 3, \"seats\": [], \"x\": 1}", &scores),
          JUNQI_STATUS_INVALID_JSON);
    FAILS(junqi_platform_score(NULL, request, &scores), JUNQI_STATUS_NULL_POINTER);
    /* A result no game can have: both sides winners (issue #27), half a team. */
    junqi_rules *classic = NULL;
    CHECK(junqi_rules_preset("classic", &classic));
    FAILS(junqi_platform_score(classic,
                               "{\"result\": {\"winners\": [\"south\", \"north\"], \"reason\": \"flag_captured\"},"
                               " \"plies\": 120, \"seats\": [{\"side\": \"south\", \"points\": 5},"
                               " {\"side\": \"north\", \"points\": 5}]}",
                               &scores),
          JUNQI_STATUS_INVALID_RESULT);
    EXPECT(strstr(junqi_last_error_message(), "south and north all won") != NULL);
    junqi_rules_free(classic);
    FAILS(junqi_platform_score(siguo,
                               "{\"result\": {\"winners\": [\"south\"], \"reason\": \"flag_captured\"},"
                               " \"plies\": 41, \"seats\": [{\"side\": \"south\", \"points\": 1},"
                               " {\"side\": \"east\", \"points\": 1}, {\"side\": \"north\", \"points\": 1},"
                               " {\"side\": \"west\", \"points\": 1}]}",
                               &scores),
          JUNQI_STATUS_INVALID_RESULT);
    EXPECT(strstr(junqi_last_error_message(), "without its ally north") != NULL);

    /* Our Elo with unequal ratings (docs/platform.md), K = 32:
     *   expected(us, them) = 1 / (1 + 10^((them - us) / 400)), new = old + 32 * (actual - expected),
     *   actual 1 / 0.5 / 0 for a win / draw / loss.
     * 1600 against 1400: expected(1600, 1400) = 1 / (1 + 10^-0.5) = 0.759746926648,
     * expected(1400, 1600) = 1 / (1 + 10^0.5) = 0.240253073352. */
    CHECK(junqi_rules_preset("classic", &classic));
    /* The favourite wins: 1600 + 32 * (1 - 0.759746926648) = 1607.688098347,
     * 1400 - 32 * 0.240253073352 = 1392.311901653. */
    const struct rating favourite[] = {{"south", 1607.688098347}, {"north", 1392.311901653}};
    expect_ratings(classic,
                   "{\"result\": {\"winners\": [\"south\"], \"reason\": \"flag_captured\"}, \"plies\": 100,"
                   " \"seats\": [{\"side\": \"south\", \"points\": 0, \"rating\": 1600},"
                   " {\"side\": \"north\", \"points\": 0, \"rating\": 1400}]}",
                   favourite, 2, "classic, 1600 beats 1400");
    /* The outsider wins: 1400 + 32 * (1 - 0.240253073352) = 1424.311901653,
     * 1600 - 32 * 0.759746926648 = 1575.688098347. */
    const struct rating outsider[] = {{"south", 1575.688098347}, {"north", 1424.311901653}};
    expect_ratings(classic,
                   "{\"result\": {\"winners\": [\"north\"], \"reason\": \"flag_captured\"}, \"plies\": 100,"
                   " \"seats\": [{\"side\": \"south\", \"points\": 0, \"rating\": 1600},"
                   " {\"side\": \"north\", \"points\": 0, \"rating\": 1400}]}",
                   outsider, 2, "classic, 1400 beats 1600");
    /* A draw: 1600 + 32 * (0.5 - 0.759746926648) = 1591.688098347,
     * 1400 + 32 * (0.5 - 0.240253073352) = 1408.311901653. */
    const struct rating drawn[] = {{"south", 1591.688098347}, {"north", 1408.311901653}};
    expect_ratings(classic,
                   "{\"result\": {\"winners\": [], \"reason\": \"agreement\"}, \"plies\": 100,"
                   " \"seats\": [{\"side\": \"south\", \"points\": 0, \"rating\": 1600},"
                   " {\"side\": \"north\", \"points\": 0, \"rating\": 1400}]}",
                   drawn, 2, "classic, a draw");
    junqi_rules_free(classic);
    /* Four players: each seat is its team's mean against the other team's. South 1700 +
     * North 1500: mean 1600; East 1450 + West 1350: mean 1400; expected(1600, 1400) =
     * 0.759746926648 for South and North. Winners +32 * (1 - 0.759746926648) = +7.688098347,
     * losers -32 * 0.240253073352 = -7.688098347 (South's own 1700 against 1400 would give
     * 1704.831345831). */
    const struct rating teams[] = {
        {"south", 1707.688098347}, {"east", 1442.311901653}, {"north", 1507.688098347}, {"west", 1342.311901653}};
    expect_ratings(siguo,
                   "{\"result\": {\"winners\": [\"south\", \"north\"], \"reason\": \"flag_captured\"},"
                   " \"plies\": 100, \"seats\": [{\"side\": \"south\", \"points\": 0, \"rating\": 1700},"
                   " {\"side\": \"east\", \"points\": 0, \"rating\": 1450},"
                   " {\"side\": \"north\", \"points\": 0, \"rating\": 1500},"
                   " {\"side\": \"west\", \"points\": 0, \"rating\": 1350}]}",
                   teams, 4, "siguo, team means");
    junqi_rules_free(siguo);
    printf("platform: all checks passed\n");
    return 0;
}
