//! `VectorEnv` against hostile sizes (issue #27): a number of games past the limit is
//! refused before anything is allocated, finished games never read stay bounded, and
//! a ply limit of 0 means "no limit" (as in C).
use junqi::limits::{MAX_FINISHED_GAMES, MAX_VECTOR_GAMES};
use junqi::{RuleSet, StepOutput, VectorEnv, VectorError};

fn step(env: &mut VectorEnv) -> (Vec<bool>, Vec<bool>) {
    let n = env.len();
    let mut actions = vec![0i64; n];
    env.random_actions(&mut actions);
    let mut masks = vec![false; n * env.action_space()];
    let mut rewards = vec![0.0; n * env.seats()];
    let (mut term, mut trunc, mut to_act) = (vec![false; n], vec![false; n], vec![0i8; n]);
    env.step(
        &actions,
        StepOutput {
            observations: None,
            masks: &mut masks,
            rewards: &mut rewards,
            terminated: &mut term,
            truncated: &mut trunc,
            to_act: &mut to_act,
        },
    )
    .unwrap();
    (term, trunc)
}

#[test]
fn a_huge_number_of_games_is_refused_before_any_allocation() {
    let rules = RuleSet::preset("classic").unwrap();
    for n in [MAX_VECTOR_GAMES + 1, 1 << 40, 1 << 62, usize::MAX] {
        let err = VectorEnv::new(rules.clone(), n, 0).err().expect("refused");
        assert_eq!(
            err,
            VectorError::TooManyGames {
                n,
                max: MAX_VECTOR_GAMES
            }
        );
        assert_eq!(
            err.to_string(),
            format!("{n} games asked of a vector environment: at most 65536 are allowed")
        );
    }
    assert_eq!(
        VectorEnv::new(rules, 0, 0).err(),
        Some(VectorError::NoGames)
    );
    assert_eq!(
        VectorError::OutOfMemory { n: 7 }.to_string(),
        "not enough memory for a vector environment of 7 games"
    );
}

#[test]
fn finished_games_never_read_are_bounded_oldest_dropped_first() {
    // One ply per game: every game is cut short at every step.
    let rules = RuleSet::preset("classic").unwrap();
    let mut env = VectorEnv::new(rules, 4, 3).unwrap().with_max_plies(Some(1));
    assert_eq!(env.finished_capacity(), MAX_FINISHED_GAMES);
    let steps = MAX_FINISHED_GAMES / 4 + 10;
    for _ in 0..steps {
        let (_, trunc) = step(&mut env);
        assert!(trunc.iter().all(|&t| t));
        assert!(env.finished_len() <= MAX_FINISHED_GAMES);
    }
    assert_eq!(env.finished_len(), MAX_FINISHED_GAMES);
    assert_eq!(env.finished_dropped(), 40);
    // The newest are kept: the oldest waiting is slot 0's episode 10.
    let first = env.next_finished().unwrap();
    assert_eq!((first.env, first.episode), (0, 10));
    assert_eq!(env.finished_len(), MAX_FINISHED_GAMES - 1);
    let rest = env.take_finished();
    assert_eq!(rest.len(), MAX_FINISHED_GAMES - 1);
    let last = rest.last().unwrap();
    assert_eq!((last.env, last.episode), (3, steps as u64 - 1));
    assert_eq!(env.finished_len(), 0);
    assert!(env.next_finished().is_none());
}

#[test]
fn one_steps_games_always_fit_in_the_queue() {
    let rules = RuleSet::preset("classic").unwrap();
    let n = MAX_FINISHED_GAMES + 6;
    let mut env = VectorEnv::new(rules, n, 1).unwrap().with_max_plies(Some(1));
    assert_eq!(env.finished_capacity(), n);
    step(&mut env);
    assert_eq!((env.finished_len(), env.finished_dropped()), (n, 0));
}

#[test]
fn a_ply_limit_of_zero_is_no_limit() {
    let rules = RuleSet::preset("classic").unwrap();
    let mut env = VectorEnv::new(rules.clone(), 3, 2)
        .unwrap()
        .with_max_plies(Some(0));
    assert_eq!(env.max_plies(), None);
    for _ in 0..5 {
        let (_, trunc) = step(&mut env);
        assert!(trunc.iter().all(|&t| !t), "0 plies cut no game");
    }
    assert_eq!(env.finished_len(), 0);
    let env = VectorEnv::new(rules, 1, 2).unwrap().with_max_plies(Some(7));
    assert_eq!(env.max_plies(), Some(7));
}

#[test]
fn a_reset_refused_for_its_buffers_restarts_nothing() {
    // Every refusal comes before any change: reset used to restart every game, then
    // panic on a short buffer.
    let rules = RuleSet::preset("classic").unwrap();
    let mut env = VectorEnv::new(rules, 2, 5).unwrap().with_observations(true);
    step(&mut env);
    let space = env.action_space();
    let obs_len = env.observation_len();
    let refused = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        env.reset(None, &mut vec![false; space], &mut [0; 2]);
    }));
    assert!(refused.is_err());
    let refused = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        env.reset_observing(
            None,
            &mut vec![0.0; obs_len],
            &mut vec![false; 2 * space],
            &mut [0; 2],
        );
    }));
    assert!(refused.is_err());
    assert_eq!(
        (env.game(0).position().ply(), env.game(1).position().ply()),
        (1, 1)
    );
}
