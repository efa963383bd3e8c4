/* What a player deduces, through the C API: beliefs as JSON and as a mask, the
 * observation tensor in a caller's buffer, its spec, and determinization — on random
 * games of classic, siguo and fanqi, with the error statuses for bad arguments.
 * Usage: inference [seed] */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "junqi.h"
#include "check.h"

static void play_random(junqi_game *game, const char *rules_name, uint64_t seed, int plies) {
    if (strcmp(rules_name, "fanqi") != 0) {
        int sides = strcmp(rules_name, "siguo") == 0 ? 4 : 2;
        for (int s = 0; s < 4; s++) {
            if (sides == 2 && (s == JUNQI_SIDE_EAST || s == JUNQI_SIDE_WEST)) continue;
            CHECK(junqi_game_deploy_random(game, s, seed + (uint64_t)s, NULL));
        }
    }
    uint32_t ids[4096];
    for (int i = 0; i < plies; i++) {
        junqi_result r;
        CHECK(junqi_game_result(game, &r));
        if (r.over) break;
        size_t n = 0;
        CHECK(junqi_game_legal_action_ids(game, ids, 4096, &n));
        EXPECT(n > 0);
        CHECK(junqi_game_play_id(game, ids[(seed * 31u + (uint64_t)i * 7u) % n], NULL));
    }
}

static void check_rules(const char *name, uint64_t seed) {
    junqi_rules *rules = NULL;
    CHECK(junqi_rules_preset(name, &rules));
    junqi_game *game = NULL;
    CHECK(junqi_game_new(rules, seed, &game));
    play_random(game, name, seed, 60);

    /* The spec and the tensor. */
    size_t len = 0, points = 0;
    CHECK(junqi_rules_observation_size(rules, &len));
    CHECK(junqi_rules_point_count(rules, &points));
    EXPECT(len > 0 && len % points == 0);
    char *spec = NULL;
    CHECK(junqi_rules_observation_spec_json(rules, &spec));
    EXPECT(strstr(spec, "\"channels\"") != NULL && strstr(spec, "own:flag") != NULL);
    junqi_string_free(spec);
    float *obs = malloc(len * sizeof(float));
    EXPECT(obs != NULL);
    CHECK(junqi_game_observation(game, JUNQI_SIDE_SOUTH, obs, len));
    EXPECT_STATUS(JUNQI_STATUS_BUFFER_TOO_SMALL, junqi_game_observation(game, JUNQI_SIDE_SOUTH, obs, len - 1));
    EXPECT_STATUS(JUNQI_STATUS_NULL_POINTER, junqi_game_observation(game, JUNQI_SIDE_SOUTH, NULL, len));
    EXPECT_STATUS(JUNQI_STATUS_OUT_OF_RANGE, junqi_game_observation(game, 9, obs, len));
    if (strcmp(name, "siguo") != 0) {
        EXPECT_STATUS(JUNQI_STATUS_SIDE_NOT_IN_GAME, junqi_game_observation(game, JUNQI_SIDE_EAST, obs, len));
    }
    double sum = 0;
    for (size_t i = 0; i < len; i++) {
        EXPECT(obs[i] >= 0.0f && obs[i] <= 1.0f);
        sum += obs[i];
    }
    EXPECT(sum > 0);

    /* With the modelled planes: the plain channels, then one plane per kind, which on
     * every point sums to the enemy plane (1 on an opponent's piece, else 0). */
    size_t mlen_obs = 0;
    CHECK(junqi_rules_modelled_observation_size(rules, &mlen_obs));
    EXPECT(mlen_obs > len && (mlen_obs - len) % points == 0);
    CHECK(junqi_rules_modelled_observation_spec_json(rules, &spec));
    EXPECT(strstr(spec, "\"modelled:flag\"") != NULL && strstr(spec, "own:flag") != NULL);
    junqi_string_free(spec);
    float *mobs = malloc(mlen_obs * sizeof(float));
    EXPECT(mobs != NULL);
    CHECK(junqi_game_observation_modelled(game, JUNQI_SIDE_SOUTH, NULL, mobs, mlen_obs));
    EXPECT(memcmp(mobs, obs, len * sizeof(float)) == 0);
    size_t kinds = (mlen_obs - len) / points, other = 0;
    /* The enemy plane: the channel after own, candidate and probability per kind and
     * ally (docs/inference.md). */
    const float *enemy = obs + (3 * kinds + 1) * points;
    for (size_t i = 0; i < points; i++) {
        double total = 0;
        for (size_t k = 0; k < kinds; k++) {
            total += mobs[len + k * points + i];
        }
        bool face_down = obs[(3 * kinds + 2) * points + i] == 1.0f, ally = obs[3 * kinds * points + i] == 1.0f;
        double want = (enemy[i] == 1.0f || face_down || ally) ? 1.0 : 0.0;
        EXPECT(total > want - 1e-4 && total < want + 1e-4);
        other += want > 0;
    }
    EXPECT(other > 0);
    EXPECT_STATUS(JUNQI_STATUS_BUFFER_TOO_SMALL, junqi_game_observation_modelled(game, JUNQI_SIDE_SOUTH, "plain", mobs, len));
    EXPECT_STATUS(JUNQI_STATUS_UNKNOWN_NAME, junqi_game_observation_modelled(game, JUNQI_SIDE_SOUTH, "psychic", mobs, mlen_obs));
    EXPECT_STATUS(JUNQI_STATUS_NULL_POINTER, junqi_game_observation_modelled(NULL, JUNQI_SIDE_SOUTH, NULL, mobs, mlen_obs));
    EXPECT_STATUS(JUNQI_STATUS_NULL_POINTER, junqi_rules_modelled_observation_size(rules, NULL));
    free(mobs);
    free(obs);

    /* Beliefs: JSON and mask. */
    char *json = NULL;
    CHECK(junqi_game_beliefs_json(game, JUNQI_SIDE_NORTH, &json));
    EXPECT(strstr(json, "\"consistent\":true") != NULL);
    EXPECT(strstr(json, "\"candidates\"") != NULL);
    junqi_string_free(json);
    size_t mlen = points * JUNQI_PIECE_KIND_COUNT;
    uint8_t *mask = malloc(mlen);
    EXPECT(mask != NULL);
    CHECK(junqi_game_beliefs_mask(game, JUNQI_SIDE_NORTH, mask, mlen));
    size_t ones = 0;
    for (size_t i = 0; i < mlen; i++) {
        EXPECT(mask[i] <= 1);
        ones += mask[i];
    }
    EXPECT(ones > 0);
    EXPECT_STATUS(JUNQI_STATUS_BUFFER_TOO_SMALL, junqi_game_beliefs_mask(game, JUNQI_SIDE_NORTH, mask, 3));

    /* Modelled beliefs: every occupied point's row sums to 1, a probability only where
     * the mask allows the kind, and the same for NULL as for "shipped". */
    double *prob = malloc(mlen * sizeof(double));
    double *prob2 = malloc(mlen * sizeof(double));
    EXPECT(prob != NULL && prob2 != NULL);
    CHECK(junqi_game_probabilities(game, JUNQI_SIDE_NORTH, NULL, prob, mlen));
    CHECK(junqi_game_probabilities(game, JUNQI_SIDE_NORTH, "shipped", prob2, mlen));
    EXPECT(memcmp(prob, prob2, mlen * sizeof(double)) == 0);
    size_t rows = 0;
    for (size_t p = 0; p < points; p++) {
        double sum = 0;
        for (size_t k = 0; k < JUNQI_PIECE_KIND_COUNT; k++) {
            double q = prob[p * JUNQI_PIECE_KIND_COUNT + k];
            EXPECT(q >= 0 && q <= 1.0 + 1e-9);
            EXPECT(q == 0 || mask[p * JUNQI_PIECE_KIND_COUNT + k] == 1);
            sum += q;
        }
        if (sum > 0) {
            EXPECT(sum > 1 - 1e-9 && sum < 1 + 1e-9);
            rows++;
        }
    }
    EXPECT(rows > 0);
    CHECK(junqi_game_probabilities(game, JUNQI_SIDE_NORTH, "plain", prob2, mlen));
    EXPECT_STATUS(JUNQI_STATUS_UNKNOWN_NAME, junqi_game_probabilities(game, JUNQI_SIDE_NORTH, "psychic", prob2, mlen));
    EXPECT_STATUS(JUNQI_STATUS_INVALID_JSON, junqi_game_probabilities(game, JUNQI_SIDE_NORTH, "{\"format\": 1}", prob2, mlen));
    EXPECT(strstr(junqi_last_error_message(), "format") != NULL);
    EXPECT_STATUS(JUNQI_STATUS_BUFFER_TOO_SMALL, junqi_game_probabilities(game, JUNQI_SIDE_NORTH, NULL, prob2, 3));
    EXPECT_STATUS(JUNQI_STATUS_NULL_POINTER, junqi_game_probabilities(NULL, JUNQI_SIDE_NORTH, NULL, prob2, mlen));
    free(prob);
    free(prob2);
    free(mask);

    /* Determinization: seeded, a game of its own. */
    junqi_game *a = NULL, *b = NULL;
    CHECK(junqi_game_determinize(game, JUNQI_SIDE_SOUTH, 7, &a));
    CHECK(junqi_game_determinize(game, JUNQI_SIDE_SOUTH, 7, &b));
    char *va = NULL, *vb = NULL, *vg = NULL;
    CHECK(junqi_game_view_json(a, JUNQI_SIDE_SOUTH, &va));
    CHECK(junqi_game_view_json(b, JUNQI_SIDE_SOUTH, &vb));
    CHECK(junqi_game_view_json(game, JUNQI_SIDE_SOUTH, &vg));
    EXPECT(strcmp(va, vb) == 0);
    EXPECT(strcmp(va, vg) == 0); /* the player's own view is kept */
    junqi_string_free(va);
    junqi_string_free(vb);
    junqi_string_free(vg);
    EXPECT_STATUS(JUNQI_STATUS_NULL_POINTER, junqi_game_determinize(game, JUNQI_SIDE_SOUTH, 7, NULL));
    junqi_game_free(a);
    junqi_game_free(b);
    junqi_game_free(game);
    junqi_rules_free(rules);
}

int main(int argc, char **argv) {
    uint64_t seed = argc > 1 ? strtoull(argv[1], NULL, 10) : 1;
    check_rules("classic", seed);
    check_rules("siguo", seed);
    check_rules("fanqi", seed);
    EXPECT_STATUS(JUNQI_STATUS_NULL_POINTER, junqi_game_beliefs_json(NULL, 0, NULL));
    printf("inference: ok\n");
    return 0;
}
