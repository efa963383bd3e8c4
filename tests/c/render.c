/* Pictures through the C API: junqi_view_svg and junqi_board_svg for every preset and
 * seat, options as JSON, and their errors (each refused call writes nothing). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "junqi.h"
#include "check.h"

/* The text is an SVG document (starts with <svg, ends with </svg>). */
static int is_svg(const char *s) {
    size_t n = strlen(s);
    return strncmp(s, "<svg", 4) == 0 && n > 6 && strcmp(s + n - 6, "</svg>") == 0;
}

static size_t count(const char *s, const char *needle) {
    size_t n = 0;
    for (const char *p = strstr(s, needle); p; p = strstr(p + 1, needle)) n++;
    return n;
}

/* Every seat of a preset, after a few plies: the view's picture, and the board's. */
static void draw_preset(const char *name, uint64_t seed) {
    junqi_rules *rules = NULL;
    junqi_game *game = NULL;
    CHECK(junqi_rules_preset(name, &rules));
    CHECK(junqi_game_new(rules, seed, &game));
    junqi_side sides[4];
    size_t n = 0;
    CHECK(junqi_rules_sides(rules, sides, 4, &n));
    junqi_side to_act;
    junqi_phase phase;
    CHECK(junqi_game_to_act(game, &to_act, &phase));
    if (phase == JUNQI_PHASE_DEPLOY) {
        for (size_t i = 0; i < n; i++) CHECK(junqi_game_deploy_random(game, sides[i], seed + i, NULL));
    }
    for (int ply = 0; ply < 12; ply++) {
        uint32_t ids[4096];
        size_t len = 0;
        CHECK(junqi_game_legal_action_ids(game, ids, 4096, &len));
        if (len == 0) break;
        CHECK(junqi_game_play_id(game, ids[(seed + (uint64_t)ply * 7) % len], NULL));
    }
    for (size_t i = 0; i < n; i++) {
        char *svg = NULL;
        CHECK(junqi_view_svg(game, sides[i], NULL, &svg));
        EXPECT(is_svg(svg));
        EXPECT(strstr(svg, "view") != NULL);
        EXPECT(count(svg, "class=\"piece ") > 0);
        char *plain = NULL;
        CHECK(junqi_view_svg(game, sides[i], "{\"legend\": false, \"caption\": false}", &plain));
        EXPECT(is_svg(plain) && strlen(plain) < strlen(svg));
        EXPECT(count(plain, "class=\"piece ") == count(svg, "class=\"piece "));
        junqi_string_free(plain);
        junqi_string_free(svg);
        char *board = NULL;
        CHECK(junqi_board_svg(rules, sides[i], "{\"scale\": 0.5}", &board));
        EXPECT(is_svg(board) && count(board, "class=\"piece ") == 0);
        junqi_string_free(board);
    }
    junqi_game_free(game);
    junqi_rules_free(rules);
}

int main(void) {
    const char *presets[] = {"classic", "siguo", "fanqi", "sanjun-modern", "sanjun-book"};
    for (size_t i = 0; i < sizeof presets / sizeof *presets; i++) draw_preset(presets[i], 3 + i);

    junqi_rules *rules = NULL;
    junqi_game *game = NULL;
    CHECK(junqi_rules_preset("classic", &rules));
    CHECK(junqi_game_new(rules, 1, &game));
    /* Any seat may look at the empty board, even one that does not play. */
    char *svg = NULL;
    CHECK(junqi_board_svg(rules, JUNQI_SIDE_EAST, NULL, &svg));
    EXPECT(is_svg(svg));
    junqi_string_free(svg);

    /* Errors: a specific status, and the out-parameter untouched. */
    char *untouched = (char *)"x";
    EXPECT(junqi_view_svg(game, JUNQI_SIDE_EAST, NULL, &untouched) == JUNQI_STATUS_SIDE_NOT_IN_GAME);
    EXPECT(junqi_view_svg(game, 9, NULL, &untouched) == JUNQI_STATUS_OUT_OF_RANGE);
    EXPECT(junqi_view_svg(game, JUNQI_SIDE_SOUTH, "{\"legnd\": false}", &untouched) == JUNQI_STATUS_INVALID_JSON);
    EXPECT(strstr(junqi_last_error_message(), "legnd") != NULL);
    EXPECT(junqi_view_svg(game, JUNQI_SIDE_SOUTH, "{\"scale\": -1}", &untouched) == JUNQI_STATUS_INVALID_JSON);
    EXPECT(junqi_view_svg(game, JUNQI_SIDE_SOUTH, "not json", &untouched) == JUNQI_STATUS_INVALID_JSON);
    EXPECT(junqi_view_svg(NULL, JUNQI_SIDE_SOUTH, NULL, &untouched) == JUNQI_STATUS_NULL_POINTER);
    EXPECT(junqi_view_svg(game, JUNQI_SIDE_SOUTH, NULL, NULL) == JUNQI_STATUS_NULL_POINTER);
    EXPECT(junqi_board_svg(NULL, JUNQI_SIDE_SOUTH, NULL, &untouched) == JUNQI_STATUS_NULL_POINTER);
    EXPECT(junqi_board_svg(rules, -1, NULL, &untouched) == JUNQI_STATUS_OUT_OF_RANGE);
    EXPECT(junqi_board_svg(rules, JUNQI_SIDE_SOUTH, "[]", &untouched) == JUNQI_STATUS_INVALID_JSON);
    EXPECT(strcmp(untouched, "x") == 0);

    junqi_game_free(game);
    junqi_rules_free(rules);
    printf("render: every preset and seat drawn, errors checked\n");
    return 0;
}
