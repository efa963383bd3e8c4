/* Agents through the C API: made by name, deploying and playing whole games of
 * classic, siguo and fanqi for every seat with junqi_agent_act, choosing without
 * playing (the same seed gives the same choice; the choice is legal), a few moves of
 * a tiny search, and the error statuses for bad names, sides, turns and phases.
 * Usage: agent [seed] [games: 0 none, 1 classic only, 3 (default) classic, fanqi, siguo] */
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "junqi.h"
#include "check.h"

#define MAX_PLIES 3000

/* The seats of a rule set, in junqi_side order. */
static int seats_of(const char *rules_name, int *sides) {
    if (strcmp(rules_name, "siguo") == 0) {
        for (int s = 0; s < 4; s++) sides[s] = s;
        return 4;
    }
    sides[0] = JUNQI_SIDE_SOUTH;
    sides[1] = JUNQI_SIDE_NORTH;
    return 2;
}

static bool is_over(const junqi_game *game) {
    junqi_result r;
    CHECK(junqi_game_result(game, &r));
    return r.over;
}

/* Plays a whole game, every seat by its agent through junqi_agent_act. */
static void play_out(const char *rules_name, junqi_agent **agents, uint64_t seed) {
    junqi_rules *rules = NULL;
    CHECK(junqi_rules_preset(rules_name, &rules));
    junqi_game *game = NULL;
    CHECK(junqi_game_new(rules, seed, &game));
    int sides[4];
    int n = seats_of(rules_name, sides);
    int plies = 0;
    while (!is_over(game) && plies < MAX_PLIES) {
        bool any = false;
        for (int i = 0; i < n; i++) {
            bool acted = false;
            char *report = NULL;
            CHECK(junqi_agent_act(agents[i], game, sides[i], &acted, &report));
            EXPECT(acted == (report != NULL));
            if (acted) {
                EXPECT(strstr(report, "\"public\"") != NULL);
                any = true;
                plies++;
            }
            junqi_string_free(report);
        }
        EXPECT(any); /* somebody always has something to do until the end */
    }
    /* Once over, nobody acts. */
    if (is_over(game)) {
        bool acted = true;
        CHECK(junqi_agent_act(agents[0], game, sides[0], &acted, NULL));
        EXPECT(!acted);
    }
    char *first = NULL, *second = NULL;
    CHECK(junqi_agent_name(agents[0], &first));
    CHECK(junqi_agent_name(agents[1], &second));
    printf("agent: %s, %s vs %s: %d actions, %s\n", rules_name, first, second, plies,
           is_over(game) ? "over" : "cut off");
    junqi_string_free(first);
    junqi_string_free(second);
    junqi_game_free(game);
    junqi_rules_free(rules);
}

static junqi_agent *agent(const char *spec, uint64_t seed) {
    junqi_agent *a = NULL;
    CHECK(junqi_agent_new(spec, seed, &a));
    EXPECT(a != NULL);
    return a;
}

int main(int argc, char **argv) {
    uint64_t seed = argc > 1 ? strtoull(argv[1], NULL, 10) : 1;
    int games = argc > 2 ? atoi(argv[2]) : 3;

    /* Names. */
    junqi_agent *greedy = agent("greedy", seed);
    char *name = NULL;
    CHECK(junqi_agent_name(greedy, &name));
    EXPECT(strcmp(name, "greedy") == 0);
    junqi_string_free(name);
    junqi_agent *search = agent("search:iters=20", seed);
    CHECK(junqi_agent_name(search, &name));
    EXPECT(strncmp(name, "search:", 7) == 0);
    junqi_string_free(name);
    /* The search it replaced, and the tree search's former name. */
    junqi_agent *pimc = agent("pimc:iters=20,eval=derived", seed);
    CHECK(junqi_agent_name(pimc, &name));
    EXPECT(strcmp(name, "pimc:iters=20,eval=derived") == 0);
    junqi_string_free(name);
    junqi_agent *alias = agent("ismcts:iters=20", seed);
    CHECK(junqi_agent_name(alias, &name));
    EXPECT(strcmp(name, "search:iters=20") == 0);
    junqi_string_free(name);
    junqi_agent_free(pimc);
    junqi_agent_free(alias);

    /* Errors: bad names and arguments, never a handle. */
    junqi_agent *bad = NULL;
    EXPECT_STATUS(JUNQI_STATUS_UNKNOWN_NAME, junqi_agent_new("grandmaster", 0, &bad));
    EXPECT(strstr(junqi_last_error_message(), "grandmaster") != NULL);
    EXPECT_STATUS(JUNQI_STATUS_OUT_OF_RANGE, junqi_agent_new("search:9", 0, &bad));
    EXPECT_STATUS(JUNQI_STATUS_NULL_POINTER, junqi_agent_new(NULL, 0, &bad));
    EXPECT_STATUS(JUNQI_STATUS_NULL_POINTER, junqi_agent_new("random", 0, NULL));
    EXPECT_STATUS(JUNQI_STATUS_INVALID_UTF8, junqi_agent_new("\xff", 0, &bad));
    EXPECT(bad == NULL);
    EXPECT_STATUS(JUNQI_STATUS_NULL_POINTER, junqi_agent_name(NULL, &name));
    junqi_agent_free(NULL); /* a no-op */

    /* Deploying and choosing in classic. */
    junqi_rules *classic = NULL;
    CHECK(junqi_rules_preset("classic", &classic));
    junqi_game *game = NULL;
    CHECK(junqi_game_new(classic, seed, &game));
    char *notation = NULL;
    uint32_t id = 0;
    EXPECT_STATUS(JUNQI_STATUS_WRONG_PHASE,
                  junqi_agent_choose(greedy, game, JUNQI_SIDE_SOUTH, &notation, &id));
    EXPECT_STATUS(JUNQI_STATUS_SIDE_NOT_IN_GAME, junqi_agent_deploy(greedy, game, JUNQI_SIDE_EAST, NULL));
    EXPECT_STATUS(JUNQI_STATUS_OUT_OF_RANGE, junqi_agent_deploy(greedy, game, 7, NULL));
    EXPECT_STATUS(JUNQI_STATUS_NULL_POINTER, junqi_agent_deploy(greedy, NULL, JUNQI_SIDE_SOUTH, NULL));
    EXPECT_STATUS(JUNQI_STATUS_NULL_POINTER, junqi_agent_deploy(NULL, game, JUNQI_SIDE_SOUTH, NULL));
    char *report = NULL;
    CHECK(junqi_agent_deploy(greedy, game, JUNQI_SIDE_SOUTH, &report));
    EXPECT(strstr(report, "deployed") != NULL);
    junqi_string_free(report);
    EXPECT_STATUS(JUNQI_STATUS_WRONG_PHASE, junqi_agent_deploy(greedy, game, JUNQI_SIDE_SOUTH, NULL));
    CHECK(junqi_agent_deploy(search, game, JUNQI_SIDE_NORTH, NULL));
    EXPECT_STATUS(JUNQI_STATUS_WRONG_PHASE, junqi_agent_deploy(search, game, JUNQI_SIDE_NORTH, NULL));

    /* South is to act: North may not choose; South's choice is legal and repeatable. */
    char *before = NULL;
    CHECK(junqi_game_record_json(game, &before));
    EXPECT_STATUS(JUNQI_STATUS_NOT_YOUR_TURN,
                  junqi_agent_choose(greedy, game, JUNQI_SIDE_NORTH, &notation, &id));
    EXPECT(strstr(junqi_last_error_message(), "turn") != NULL);
    EXPECT_STATUS(JUNQI_STATUS_NULL_POINTER,
                  junqi_agent_choose(greedy, game, JUNQI_SIDE_SOUTH, NULL, &id));
    /* Two fresh agents of one name and seed choose alike (`search` has deployed since). */
    junqi_agent *fresh = agent("search:iters=20", seed);
    CHECK(junqi_agent_choose(fresh, game, JUNQI_SIDE_SOUTH, &notation, &id));
    junqi_agent_free(fresh);
    junqi_agent *twin = agent("search:iters=20", seed);
    char *again = NULL;
    uint32_t id_again = 0;
    CHECK(junqi_agent_choose(twin, game, JUNQI_SIDE_SOUTH, &again, &id_again));
    EXPECT(strcmp(notation, again) == 0 && id == id_again);
    junqi_string_free(again);
    junqi_agent_free(twin);
    char *legal = NULL;
    CHECK(junqi_game_legal_actions_json(game, &legal));
    char quoted[64];
    snprintf(quoted, sizeof quoted, "\"%s\"", notation);
    EXPECT(strstr(legal, quoted) != NULL);
    junqi_string_free(legal);
    char *after = NULL;
    CHECK(junqi_game_record_json(game, &after));
    EXPECT(strcmp(before, after) == 0); /* choosing changes nothing */
    junqi_string_free(before);
    junqi_string_free(after);
    CHECK(junqi_game_play_id(game, id, NULL));
    junqi_string_free(notation);

    /* A few moves of the tiny search against greedy. */
    for (int i = 0; i < 6 && !is_over(game); i++) {
        bool acted = false;
        CHECK(junqi_agent_act(greedy, game, JUNQI_SIDE_NORTH, &acted, NULL));
        CHECK(junqi_agent_act(search, game, JUNQI_SIDE_SOUTH, &acted, NULL));
        EXPECT_STATUS(JUNQI_STATUS_NULL_POINTER, junqi_agent_act(search, game, JUNQI_SIDE_SOUTH, NULL, NULL));
    }
    junqi_game_free(game);
    junqi_rules_free(classic);

    /* fanqi deals: nothing to deploy. */
    junqi_rules *fanqi = NULL;
    CHECK(junqi_rules_preset("fanqi", &fanqi));
    CHECK(junqi_game_new(fanqi, seed, &game));
    EXPECT_STATUS(JUNQI_STATUS_WRONG_PHASE, junqi_agent_deploy(greedy, game, JUNQI_SIDE_SOUTH, NULL));
    junqi_game_free(game);
    junqi_rules_free(fanqi);

    /* Whole games: greedy against random in classic and fanqi, four seats of siguo. */
    junqi_agent *random = agent("random", seed + 1);
    junqi_agent *two[2] = {greedy, random};
    junqi_agent *random2 = agent("random", seed + 2);
    junqi_agent *greedy2 = agent("greedy", seed + 3);
    junqi_agent *four[4] = {greedy, random, greedy2, random2};
    if (games >= 1) play_out("classic", two, seed);
    if (games >= 3) {
        play_out("fanqi", two, seed + 1);
        play_out("siguo", four, seed + 2);
    }

    junqi_agent_free(greedy);
    junqi_agent_free(greedy2);
    junqi_agent_free(search);
    junqi_agent_free(random);
    junqi_agent_free(random2);
    printf("agent: all checks passed\n");
    return 0;
}
