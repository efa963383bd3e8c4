/* Many games stepped together through the C API (junqi_vector_env): shapes, reset,
 * random play with masks, observations and rewards, finished games handed out as game
 * handles, identical results for 1 and 2 threads, refused calls that write nothing
 * and change nothing, huge sizes refused and the finished-games queue bounded.
 * Usage: vector [steps] */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "junqi.h"
#include "check.h"

typedef struct {
    junqi_vector_shape shape;
    float *obs;
    bool *masks;
    float *rewards;
    bool *terminated, *truncated;
    int8_t *to_act;
    int64_t *actions;
    junqi_vector_buffers bufs;
} arrays;

static void *xcalloc(size_t n, size_t size) {
    void *p = calloc(n ? n : 1, size);
    EXPECT(p != NULL);
    return p;
}

static void make_arrays(junqi_vector_env *env, arrays *a) {
    CHECK(junqi_vector_env_shape(env, &a->shape));
    size_t n = a->shape.games;
    a->obs = a->shape.observes ? xcalloc(n * a->shape.observation_len, sizeof(float)) : NULL;
    a->masks = xcalloc(n * a->shape.action_space, sizeof(bool));
    a->rewards = xcalloc(n * a->shape.seats, sizeof(float));
    a->terminated = xcalloc(n, sizeof(bool));
    a->truncated = xcalloc(n, sizeof(bool));
    a->to_act = xcalloc(n, sizeof(int8_t));
    a->actions = xcalloc(n, sizeof(int64_t));
    junqi_vector_buffers b = {
        .observations = a->obs,
        .observations_len = a->obs ? n * a->shape.observation_len : 0,
        .masks = a->masks,
        .masks_len = n * a->shape.action_space,
        .rewards = a->rewards,
        .rewards_len = n * a->shape.seats,
        .terminated = a->terminated,
        .truncated = a->truncated,
        .to_act = a->to_act,
        .games_len = n,
    };
    a->bufs = b;
}

static void free_arrays(arrays *a) {
    free(a->obs);
    free(a->masks);
    free(a->rewards);
    free(a->terminated);
    free(a->truncated);
    free(a->to_act);
    free(a->actions);
}

/* Every game's mask row has a legal action, and the random actions are in their masks. */
static void check_masks(const arrays *a) {
    for (size_t i = 0; i < a->shape.games; i++) {
        const bool *row = a->masks + i * a->shape.action_space;
        size_t legal = 0;
        for (size_t k = 0; k < a->shape.action_space; k++) legal += row[k];
        EXPECT(legal > 0);
        EXPECT(a->to_act[i] >= 0 && (size_t)a->to_act[i] < a->shape.seats);
    }
}

static uint64_t fnv(uint64_t h, const void *data, size_t len) {
    const unsigned char *p = data;
    for (size_t i = 0; i < len; i++) h = (h ^ p[i]) * 1099511628211ull;
    return h;
}

/* Plays `steps` random steps; returns a hash of everything written, and counts the
 * finished games handed out. */
static uint64_t play(const char *preset, size_t n, size_t threads, bool observe, int steps,
                     size_t *finished_out) {
    junqi_rules *rules = NULL;
    CHECK(junqi_rules_preset(preset, &rules));
    junqi_vector_env *env = NULL;
    CHECK(junqi_vector_env_new(rules, n, 11, observe, 60, threads, &env));
    junqi_rules_free(rules); /* the environment keeps its own reference */
    arrays a;
    make_arrays(env, &a);
    EXPECT(a.shape.games == n);
    EXPECT(a.shape.observes == observe);
    CHECK(junqi_vector_env_reset(env, false, 0, &a.bufs));
    check_masks(&a);
    uint64_t h = 1469598103934665603ull;
    size_t finished = 0, ended = 0;
    for (int s = 0; s < steps; s++) {
        CHECK(junqi_vector_env_random_actions(env, a.actions, n));
        for (size_t i = 0; i < n; i++)
            EXPECT(a.masks[i * a.shape.action_space + (size_t)a.actions[i]]);
        CHECK(junqi_vector_env_step(env, a.actions, n, &a.bufs));
        check_masks(&a);
        for (size_t i = 0; i < n; i++) {
            for (size_t k = 0; k < a.shape.seats; k++) {
                float r = a.rewards[i * a.shape.seats + k];
                EXPECT(r == 0.0f || r == 1.0f || r == -1.0f);
                if (r != 0.0f) EXPECT(a.terminated[i]);
            }
            ended += a.terminated[i] || a.truncated[i];
            EXPECT(!(a.terminated[i] && a.truncated[i]));
        }
        h = fnv(h, a.masks, n * a.shape.action_space);
        h = fnv(h, a.rewards, n * a.shape.seats * sizeof(float));
        h = fnv(h, a.to_act, n);
        if (a.obs) h = fnv(h, a.obs, n * a.shape.observation_len * sizeof(float));
        /* Hand out the finished games: each is over, or was cut short at the limit. */
        for (;;) {
            junqi_game *g = NULL;
            size_t slot = 99;
            uint64_t episode = 0;
            bool truncated = false;
            CHECK(junqi_vector_env_next_finished(env, &g, &slot, &episode, &truncated));
            if (!g) break;
            EXPECT(slot < n);
            junqi_result r;
            CHECK(junqi_game_result(g, &r));
            EXPECT(r.over != truncated);
            char *record = NULL;
            CHECK(junqi_game_record_json(g, &record));
            EXPECT(strstr(record, "\"actions\"") != NULL);
            junqi_string_free(record);
            junqi_game_free(g);
            finished++;
        }
    }
    EXPECT(finished == ended);
    /* A copy of a game in progress. */
    junqi_game *g = NULL;
    CHECK(junqi_vector_env_game(env, n - 1, &g));
    junqi_result r;
    CHECK(junqi_game_result(g, &r));
    EXPECT(!r.over);
    junqi_game_free(g);
    EXPECT_STATUS(JUNQI_STATUS_OUT_OF_RANGE, junqi_vector_env_game(env, n, &g));
    free_arrays(&a);
    junqi_vector_env_free(env);
    *finished_out = finished;
    return h;
}

/* Refused calls: the status, nothing written, and the environment unchanged (it goes
 * on exactly as a twin that was never refused). */
static void refusals(void) {
    junqi_rules *rules = NULL;
    CHECK(junqi_rules_preset("classic", &rules));
    junqi_vector_env *env = NULL, *twin = NULL, *blind = NULL;
    EXPECT_STATUS(JUNQI_STATUS_OUT_OF_RANGE, junqi_vector_env_new(rules, 0, 1, false, 0, 1, &env));
    EXPECT(strstr(junqi_last_error_message(), "at least one game") != NULL);
    EXPECT_STATUS(JUNQI_STATUS_NULL_POINTER, junqi_vector_env_new(NULL, 2, 1, false, 0, 1, &env));
    EXPECT_STATUS(JUNQI_STATUS_NULL_POINTER, junqi_vector_env_new(rules, 2, 1, false, 0, 1, NULL));
    CHECK(junqi_vector_env_new(rules, 3, 5, true, 0, 1, &env));
    CHECK(junqi_vector_env_new(rules, 3, 5, true, 0, 1, &twin));
    CHECK(junqi_vector_env_new(rules, 3, 5, false, 0, 1, &blind));
    arrays a, b;
    make_arrays(env, &a);
    make_arrays(twin, &b);
    CHECK(junqi_vector_env_reset(env, false, 0, &a.bufs));
    CHECK(junqi_vector_env_reset(twin, false, 0, &b.bufs));
    CHECK(junqi_vector_env_random_actions(env, a.actions, 3));
    CHECK(junqi_vector_env_random_actions(twin, b.actions, 3));
    size_t mask_bytes = 3 * a.shape.action_space;

    /* Sentinels: a refused call must not touch them. */
    memset(a.masks, 1, mask_bytes);
    memset(a.to_act, 0x55, 3);
    junqi_vector_buffers bad = a.bufs;
    EXPECT_STATUS(JUNQI_STATUS_OUT_OF_RANGE, junqi_vector_env_step(env, a.actions, 2, &a.bufs));
    int64_t saved = a.actions[1];
    a.actions[1] = -1;
    EXPECT_STATUS(JUNQI_STATUS_ILLEGAL_ACTION, junqi_vector_env_step(env, a.actions, 3, &a.bufs));
    EXPECT(strstr(junqi_last_error_message(), "game 1") != NULL);
    a.actions[1] = (int64_t)a.shape.action_space + 5;
    EXPECT_STATUS(JUNQI_STATUS_ILLEGAL_ACTION, junqi_vector_env_step(env, a.actions, 3, &a.bufs));
    a.actions[1] = saved;
    bad.masks_len = mask_bytes - 1;
    EXPECT_STATUS(JUNQI_STATUS_BUFFER_TOO_SMALL, junqi_vector_env_step(env, a.actions, 3, &bad));
    bad = a.bufs;
    bad.rewards = NULL;
    EXPECT_STATUS(JUNQI_STATUS_NULL_POINTER, junqi_vector_env_step(env, a.actions, 3, &bad));
    bad = a.bufs;
    bad.games_len = 2;
    EXPECT_STATUS(JUNQI_STATUS_BUFFER_TOO_SMALL, junqi_vector_env_step(env, a.actions, 3, &bad));
    bad = a.bufs;
    bad.observations_len = 1;
    EXPECT_STATUS(JUNQI_STATUS_BUFFER_TOO_SMALL, junqi_vector_env_step(env, a.actions, 3, &bad));
    EXPECT_STATUS(JUNQI_STATUS_NULL_POINTER, junqi_vector_env_step(env, NULL, 3, &a.bufs));
    EXPECT_STATUS(JUNQI_STATUS_NULL_POINTER, junqi_vector_env_step(env, a.actions, 3, NULL));
    EXPECT_STATUS(JUNQI_STATUS_NULL_POINTER, junqi_vector_env_step(NULL, a.actions, 3, &a.bufs));
    EXPECT_STATUS(JUNQI_STATUS_BUFFER_TOO_SMALL, junqi_vector_env_random_actions(env, a.actions, 2));
    /* Observations from an environment that does not observe. */
    arrays c;
    make_arrays(blind, &c);
    c.bufs.observations = a.obs;
    c.bufs.observations_len = a.bufs.observations_len;
    EXPECT_STATUS(JUNQI_STATUS_OUT_OF_RANGE, junqi_vector_env_reset(blind, false, 0, &c.bufs));
    EXPECT(strstr(junqi_last_error_message(), "observe") != NULL);
    for (size_t k = 0; k < mask_bytes; k++) EXPECT(((unsigned char *)a.masks)[k] == 1);
    for (size_t k = 0; k < 3; k++) EXPECT((unsigned char)a.to_act[k] == 0x55);

    /* Nothing changed: both go on identically. */
    for (int s = 0; s < 30; s++) {
        CHECK(junqi_vector_env_random_actions(env, a.actions, 3));
        CHECK(junqi_vector_env_random_actions(twin, b.actions, 3));
        EXPECT(memcmp(a.actions, b.actions, 3 * sizeof(int64_t)) == 0);
        CHECK(junqi_vector_env_step(env, a.actions, 3, &a.bufs));
        CHECK(junqi_vector_env_step(twin, b.actions, 3, &b.bufs));
        EXPECT(memcmp(a.masks, b.masks, mask_bytes) == 0);
        EXPECT(memcmp(a.obs, b.obs, 3 * a.shape.observation_len * sizeof(float)) == 0);
    }
    /* Reseeding restarts as a new environment with that seed. */
    CHECK(junqi_vector_env_reset(env, true, 77, &a.bufs));
    junqi_vector_env *fresh = NULL;
    CHECK(junqi_vector_env_new(rules, 3, 77, true, 0, 1, &fresh));
    CHECK(junqi_vector_env_reset(fresh, false, 0, &b.bufs));
    /* A fresh environment's reset starts episode 1, a reseeded one episode 0: compare
       with a fresh environment reset by reseeding too. */
    CHECK(junqi_vector_env_reset(fresh, true, 77, &b.bufs));
    EXPECT(memcmp(a.masks, b.masks, mask_bytes) == 0);
    EXPECT(memcmp(a.obs, b.obs, 3 * a.shape.observation_len * sizeof(float)) == 0);

    junqi_vector_env_free(NULL);
    junqi_vector_env_free(fresh);
    junqi_vector_env_free(env);
    junqi_vector_env_free(twin);
    junqi_vector_env_free(blind);
    free_arrays(&a);
    free_arrays(&b);
    c.obs = NULL; /* borrowed from a */
    free_arrays(&c);
    junqi_rules_free(rules);
}

/* Hostile sizes (issue #27): a huge number of games is refused (not an abort), the
 * finished-games queue is bounded when nobody takes the games, and 0 plies is no limit. */
static void limits(void) {
    junqi_rules *rules = NULL;
    CHECK(junqi_rules_preset("classic", &rules));
    junqi_vector_env *env = NULL;
    const size_t huge[] = {(size_t)JUNQI_MAX_VECTOR_GAMES + 1, (size_t)1 << 40, SIZE_MAX};
    for (size_t i = 0; i < sizeof huge / sizeof huge[0]; i++) {
        EXPECT_STATUS(JUNQI_STATUS_OUT_OF_RANGE, junqi_vector_env_new(rules, huge[i], 1, false, 0, 1, &env));
        EXPECT(strstr(junqi_last_error_message(), "at most 65536 are allowed") != NULL);
        EXPECT(env == NULL);
    }
    /* Two games cut short at every step: 2 finished games a step, never taken. */
    CHECK(junqi_vector_env_new(rules, 2, 3, false, 1, 1, &env));
    arrays a;
    make_arrays(env, &a);
    CHECK(junqi_vector_env_reset(env, false, 0, &a.bufs));
    int steps = JUNQI_MAX_FINISHED_GAMES / 2 + 8;
    size_t len = 0, capacity = 0;
    uint64_t dropped = 0;
    for (int s = 0; s < steps; s++) {
        CHECK(junqi_vector_env_random_actions(env, a.actions, 2));
        CHECK(junqi_vector_env_step(env, a.actions, 2, &a.bufs));
        EXPECT(a.truncated[0] && a.truncated[1]);
    }
    CHECK(junqi_vector_env_finished_len(env, &len, &capacity, &dropped));
    EXPECT(len == JUNQI_MAX_FINISHED_GAMES && capacity == JUNQI_MAX_FINISHED_GAMES && dropped == 16);
    EXPECT_STATUS(JUNQI_STATUS_NULL_POINTER, junqi_vector_env_finished_len(env, NULL, NULL, NULL));
    /* The oldest waiting is episode 9 of slot 0: the reset started episode 1, and
     * episodes 1 to 8 were dropped. */
    junqi_game *g = NULL;
    size_t slot = 9;
    uint64_t episode = 0;
    CHECK(junqi_vector_env_next_finished(env, &g, &slot, &episode, NULL));
    EXPECT(g != NULL && slot == 0 && episode == 9);
    junqi_game_free(g);
    CHECK(junqi_vector_env_finished_len(env, &len, NULL, NULL));
    EXPECT(len == JUNQI_MAX_FINISHED_GAMES - 1);
    CHECK(junqi_vector_env_reset(env, false, 0, &a.bufs));
    CHECK(junqi_vector_env_finished_len(env, &len, NULL, &dropped));
    EXPECT(len == 0 && dropped == 16);
    free_arrays(&a);
    junqi_vector_env_free(env);
    junqi_rules_free(rules);
}

/* The modelled planes: the observation grows by one plane per kind, the first channels
 * stay those of an environment without them, and a refused model changes nothing. */
static void modelled(void) {
    junqi_rules *rules = NULL;
    CHECK(junqi_rules_preset("classic", &rules));
    junqi_vector_env *plain = NULL, *env = NULL;
    CHECK(junqi_vector_env_new(rules, 3, 9, true, 0, 1, &plain));
    CHECK(junqi_vector_env_new(rules, 3, 9, true, 0, 1, &env));
    CHECK(junqi_vector_env_set_model(env, "shipped"));
    EXPECT_STATUS(JUNQI_STATUS_UNKNOWN_NAME, junqi_vector_env_set_model(env, "psychic"));
    EXPECT_STATUS(JUNQI_STATUS_NULL_POINTER, junqi_vector_env_set_model(NULL, "shipped"));
    arrays a, b;
    make_arrays(plain, &a);
    make_arrays(env, &b);
    size_t want = 0;
    CHECK(junqi_rules_modelled_observation_size(rules, &want));
    EXPECT(b.shape.observation_len == want && want > a.shape.observation_len);
    CHECK(junqi_vector_env_reset(plain, false, 0, &a.bufs));
    CHECK(junqi_vector_env_reset(env, false, 0, &b.bufs));
    for (int step = 0; step < 40; step++) {
        CHECK(junqi_vector_env_random_actions(plain, a.actions, a.shape.games));
        CHECK(junqi_vector_env_step(plain, a.actions, a.shape.games, &a.bufs));
        CHECK(junqi_vector_env_step(env, a.actions, a.shape.games, &b.bufs));
    }
    for (size_t i = 0; i < a.shape.games; i++) {
        const float *x = a.obs + i * a.shape.observation_len, *y = b.obs + i * b.shape.observation_len;
        EXPECT(memcmp(x, y, a.shape.observation_len * sizeof(float)) == 0);
        double total = 0;
        for (size_t j = a.shape.observation_len; j < b.shape.observation_len; j++) {
            total += y[j];
        }
        EXPECT(total > 10); /* 1 per opponent piece on the board */
    }
    /* Taken away again: the plain length. */
    CHECK(junqi_vector_env_set_model(env, NULL));
    junqi_vector_shape shape;
    CHECK(junqi_vector_env_shape(env, &shape));
    EXPECT(shape.observation_len == a.shape.observation_len);
    free_arrays(&a);
    free_arrays(&b);
    junqi_vector_env_free(plain);
    junqi_vector_env_free(env);
    junqi_rules_free(rules);
}

int main(int argc, char **argv) {
    int steps = argc > 1 ? atoi(argv[1]) : 400;
    size_t f1 = 0, f2 = 0, f3 = 0, f4 = 0;
    /* Observing, with the ply limit reached. */
    play("classic", 8, 1, true, steps, &f1);
    EXPECT(f1 > 0); /* 60-ply limit: games finish */
    /* Over 64 games a step is split between the threads: the same results. */
    uint64_t one = play("classic", 130, 1, false, steps / 2, &f2);
    uint64_t two = play("classic", 130, 2, false, steps / 2, &f3);
    EXPECT(one == two && f2 == f3);
    play("siguo", 4, 2, true, steps / 2, &f4);
    refusals();
    limits();
    modelled();
    printf("vector: %d steps of 8 classic games (%zu finished), 130 games the same with 1 and 2 threads "
           "(%zu finished), siguo %zu finished\n",
           steps, f1, f2, f4);
    return 0;
}
