/* An engine in C (docs/protocol.md, version 1): plays a random legal action in every
 * rule set, drawing from the seed the referee tells for each game (`seed <n>`, mixed
 * with its own `seed` option). It rebuilds its seat's game from the view string the
 * referee sends before each `go` (junqi_game_from_position_string), so its legal
 * actions are the seat's true ones, and lets the referee draw its deployment (`setup
 * random`). The lines it has no use for — `event`, the referee's `setup`, `clock`,
 * `gameover` — it ignores, as the protocol lets an engine do; it never offers a draw
 * and declines every offer.
 *
 *   junqi match --engine c=./engine_example --engine rust="junqi engine" --games 2
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "junqi.h"

#define MAX_LINE 70000

static char line[MAX_LINE];
static char view[MAX_LINE];

static uint64_t rng_state = 88172645463325252ull;
static uint64_t option_seed = 0;
static uint64_t next_random(void) {
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

/* The answer to `go`: a random legal action of the game read from the view string. */
static void act(void) {
    junqi_game *game = NULL;
    if (junqi_game_from_position_string(view, 0, &game) != JUNQI_STATUS_OK) {
        printf("info error %s\n", junqi_last_error_message());
        return;
    }
    size_t n = 0;
    junqi_game_legal_action_ids(game, NULL, 0, &n);
    uint32_t *ids = malloc((n ? n : 1) * sizeof *ids);
    junqi_rules *rules = NULL;
    char *text = NULL;
    if (ids && n > 0 && junqi_game_legal_action_ids(game, ids, n, &n) == JUNQI_STATUS_OK &&
        junqi_game_rules(game, &rules) == JUNQI_STATUS_OK &&
        junqi_action_print(rules, ids[next_random() % n], &text) == JUNQI_STATUS_OK) {
        printf("action %s\n", text);
    } else {
        printf("info error no legal action\n");
    }
    junqi_string_free(text);
    junqi_rules_free(rules);
    free(ids);
    junqi_game_free(game);
}

int main(void) {
    while (fgets(line, sizeof line, stdin)) {
        line[strcspn(line, "\r\n")] = '\0';
        if (strncmp(line, "junqi ", 6) == 0) {
            printf("id name c example\noption seed int 0\nready\n");
        } else if (strncmp(line, "setoption seed ", 15) == 0) {
            option_seed = strtoull(line + 15, NULL, 10);
            rng_state = option_seed * 2654435761u + 1;
        } else if (strncmp(line, "seed ", 5) == 0) {
            /* The game's seed: every game of a match is another game. */
            rng_state = (option_seed ^ strtoull(line + 5, NULL, 10)) * 2654435761u + 1;
        } else if (strncmp(line, "position ", 9) == 0) {
            strcpy(view, line + 9);
        } else if (strncmp(line, "deploy", 6) == 0) {
            printf("setup random\n");
        } else if (strncmp(line, "go", 2) == 0) {
            act();
        } else if (strncmp(line, "draw", 4) == 0) {
            printf("draw decline\n");
        } else if (strcmp(line, "quit") == 0) {
            break;
        }
        fflush(stdout);
    }
    return 0;
}
