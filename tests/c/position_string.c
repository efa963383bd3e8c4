/* Position strings through the C API: a game's position and a player's view as one
 * line, a game started from either, and a refused string with its own status; and the
 * seeded start of every preset and seed in tests/golden/random-start.txt (the same in
 * every layer), run from the repository's root. */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "junqi.h"
#include "check.h"

/* Each line "preset<TAB>seed<TAB>position string": junqi_game_random_start prints it. */
static void seeded_starts(void) {
    FILE *f = fopen("tests/golden/random-start.txt", "r");
    EXPECT(f != NULL);
    static char line[8192];
    int checked = 0;
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#') continue;
        line[strcspn(line, "\n")] = '\0';
        char *name = strtok(line, "\t"), *seed = strtok(NULL, "\t"), *want = strtok(NULL, "\t");
        EXPECT(name && seed && want);
        junqi_rules *rules = NULL;
        junqi_game *game = NULL;
        char *got = NULL;
        CHECK(junqi_rules_preset(name, &rules));
        CHECK(junqi_game_random_start(rules, strtoull(seed, NULL, 10), &game));
        CHECK(junqi_game_position_string(game, &got));
        if (strcmp(got, want) != 0) {
            fprintf(stderr, "seeded start of %s %s differs:\n  %s\n  %s\n", name, seed, got, want);
            exit(1);
        }
        junqi_string_free(got);
        junqi_game_free(game);
        junqi_rules_free(rules);
        checked++;
    }
    fclose(f);
    EXPECT(checked >= 8);
}

int main(void) {
    seeded_starts();
    junqi_rules *rules = NULL;
    junqi_game *game = NULL;
    CHECK(junqi_rules_preset("classic", &rules));
    CHECK(junqi_game_new(rules, 3, &game));
    CHECK(junqi_game_deploy_random(game, JUNQI_SIDE_SOUTH, 1, NULL));
    CHECK(junqi_game_deploy_random(game, JUNQI_SIDE_NORTH, 2, NULL));

    char *full = NULL, *view = NULL;
    CHECK(junqi_game_position_string(game, &full));
    CHECK(junqi_game_view_string(game, JUNQI_SIDE_SOUTH, &view));
    EXPECT(strncmp(full, "classic ", 8) == 0 && strchr(full, '\n') == NULL);
    EXPECT(strstr(full, "=NFL") != NULL);        /* the referee's string tells all */
    EXPECT(strstr(view, "=NFL") == NULL);        /* South's view does not */
    EXPECT(strstr(view, "=N??") != NULL && strstr(view, "view=S") != NULL);

    /* A game from the string prints the same string. */
    junqi_game *copy = NULL;
    char *again = NULL;
    CHECK(junqi_game_from_position_string(full, 7, &copy));
    CHECK(junqi_game_position_string(copy, &again));
    EXPECT(strcmp(full, again) == 0);

    /* A game from South's view: South sees the same. */
    junqi_game *seen = NULL;
    char *seen_view = NULL;
    CHECK(junqi_game_from_position_string(view, 7, &seen));
    CHECK(junqi_game_view_string(seen, JUNQI_SIDE_SOUTH, &seen_view));
    EXPECT(strcmp(view, seen_view) == 0);

    /* Refusals: their own status, a message, nothing made. */
    junqi_game *none = NULL;
    EXPECT(junqi_game_from_position_string("classic a1=SZZ move S 0 0", 1, &none) == JUNQI_STATUS_INVALID_POSITION);
    EXPECT(none == NULL && strstr(junqi_last_error_message(), "ZZ") != NULL);
    EXPECT(junqi_game_from_position_string("chess - move S 0 0", 1, &none) == JUNQI_STATUS_INVALID_POSITION);
    EXPECT(junqi_game_from_position_string(NULL, 1, &none) == JUNQI_STATUS_NULL_POINTER);
    EXPECT(junqi_game_view_string(game, JUNQI_SIDE_EAST, &view) == JUNQI_STATUS_SIDE_NOT_IN_GAME);

    junqi_string_free(full);
    junqi_string_free(view);
    junqi_string_free(again);
    junqi_string_free(seen_view);
    junqi_game_free(copy);
    junqi_game_free(seen);
    junqi_game_free(game);
    junqi_rules_free(rules);
    printf("position strings: ok\n");
    return 0;
}
