/* A complete refereed game between two random players (docs/c.md shows this file). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "junqi.h"

/* Stops the program with the library's message if a call failed. */
static void check(junqi_status status, const char *what) {
    if (status != JUNQI_STATUS_OK) {
        fprintf(stderr, "%s failed: %s: %s\n", what, junqi_status_name(status),
                junqi_last_error_message());
        exit(1);
    }
}

int main(void) {
    junqi_rules *rules = NULL;
    junqi_game *game = NULL;
    check(junqi_rules_preset("classic", &rules), "junqi_rules_preset");
    check(junqi_game_new(rules, 2024, &game), "junqi_game_new");

    /* Both sides deploy a random legal setup (or use junqi_game_deploy_json). */
    check(junqi_game_deploy_random(game, JUNQI_SIDE_SOUTH, 1, NULL), "deploy south");
    check(junqi_game_deploy_random(game, JUNQI_SIDE_NORTH, 2, NULL), "deploy north");

    /* A buffer as large as the action space holds any list of legal action ids. */
    size_t space = 0;
    check(junqi_game_action_space(game, &space), "junqi_game_action_space");
    uint32_t *ids = malloc(space * sizeof *ids);
    if (ids == NULL) return 1;

    uint64_t rng = 42;
    unsigned plies = 0;
    junqi_side side;
    junqi_phase phase;
    check(junqi_game_to_act(game, &side, &phase), "junqi_game_to_act");
    /* In a reaction (海陆空三军棋) the side to act steps its submarine away. */
    while (phase == JUNQI_PHASE_MOVE || phase == JUNQI_PHASE_REACTION) {
        size_t n = 0;
        check(junqi_game_legal_action_ids(game, ids, space, &n), "legal actions");
        rng = rng * 6364136223846793005u + 1442695040888963407u;
        char *report = NULL; /* the referee's report, as JSON */
        check(junqi_game_play_id(game, ids[(rng >> 33) % n], &report), "junqi_game_play_id");
        junqi_string_free(report);
        plies++;
        check(junqi_game_to_act(game, &side, &phase), "junqi_game_to_act");
    }

    junqi_result result;
    const char *reason = NULL;
    check(junqi_game_result(game, &result), "junqi_game_result");
    check(junqi_end_reason_name(result.reason, &reason), "junqi_end_reason_name");
    if (result.draw) {
        printf("draw (%s) after %u plies\n", reason, plies);
    } else {
        const char *winner = NULL;
        check(junqi_side_name(result.winner, &winner), "junqi_side_name");
        printf("%s wins (%s) after %u plies\n", winner, reason, plies);
    }

    /* What North saw, as text; the full record replays the game. */
    char *board = NULL;
    check(junqi_game_view_text(game, JUNQI_SIDE_NORTH, &board), "junqi_game_view_text");
    fputs(board, stdout);
    junqi_string_free(board);

    free(ids);
    junqi_game_free(game);
    junqi_rules_free(rules);
    return 0;
}
