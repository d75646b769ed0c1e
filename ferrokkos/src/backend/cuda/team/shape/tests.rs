//! Tests of `shape.rs` on an H100-like device: 1024 threads per block, 48 KiB of shared memory per
//! block (227 KiB opted in).

use super::*;

fn limits_of(max_threads: u32, value_size: usize) -> BlockLimits {
    BlockLimits {
        max_threads,
        shared_per_block: 48 << 10,
        shared_optin: 227 << 10,
        value_size,
    }
}

const H100: BlockLimits = BlockLimits {
    max_threads: 1024,
    shared_per_block: 48 << 10,
    shared_optin: 227 << 10,
    value_size: 0,
};

fn ask(league_size: usize, team_size: TeamSize, vector_length: TeamSize) -> TeamAsk {
    TeamAsk {
        league_size,
        team_size,
        vector_length,
        scratch: [ScratchRequest::default(); 2],
    }
}

fn what() -> String {
    "parallel_for \"t\" on Cuda".into()
}

#[test]
fn the_team_fills_the_block_and_auto_aims_at_256_threads() {
    let l = limits(1, &H100);
    assert_eq!((l.team_size_max, l.team_size_recommended), (1024, 256));
    assert_eq!(
        (l.vector_length_max, l.scratch_max),
        (32, [227 << 10, usize::MAX])
    );
    let l = limits(32, &H100);
    assert_eq!((l.team_size_max, l.team_size_recommended), (32, 8));
    // A function limited by its registers to 256 threads.
    let l = limits(4, &limits_of(256, 0));
    assert_eq!((l.team_size_max, l.team_size_recommended), (64, 64));
    // A reduction of 64-byte values: 48 KiB holds 768 of them.
    let l = limits(2, &limits_of(1024, 64));
    assert_eq!((l.team_size_max, l.team_size_recommended), (384, 128));
}

#[test]
fn auto_gives_one_lane_and_the_recommended_team() {
    let shape = resolve(&ask(7, TeamSize::Auto, TeamSize::Auto), &H100, &what).unwrap();
    assert_eq!(
        shape,
        TeamShape {
            league: 7,
            team_size: 256,
            vector_length: 1
        }
    );
    let shape = resolve(&ask(0, TeamSize::Auto, TeamSize::Fixed(16)), &H100, &what).unwrap();
    assert_eq!(
        (shape.league, shape.team_size, shape.vector_length),
        (0, 16, 16)
    );
    assert_eq!(shape.block(), 256);
    let fixed = resolve(
        &ask(3, TeamSize::Fixed(33), TeamSize::Fixed(4)),
        &H100,
        &what,
    );
    assert_eq!(fixed.unwrap().block(), 132);
}

#[test]
fn a_vector_length_beyond_the_warp_is_an_error_naming_both() {
    let e = resolve(&ask(1, TeamSize::Auto, TeamSize::Fixed(64)), &H100, &what).unwrap_err();
    let text = e.to_string();
    assert!(matches!(e, Error::Policy { .. }), "{e:?}");
    assert!(
        text.contains("vector length of 64") && text.contains("limit is 32"),
        "{text}"
    );
    assert!(text.contains("parallel_for \"t\" on Cuda"), "{text}");
}

#[test]
fn a_team_beyond_the_block_is_an_error_naming_the_sizes_and_the_limit() {
    let e = resolve(
        &ask(1, TeamSize::Fixed(64), TeamSize::Fixed(32)),
        &H100,
        &what,
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("a team of 64 threads with vector length 32 is 2048 threads"),
        "{e}"
    );
    assert!(
        e.contains("at most 1024 threads") && e.contains("team_size_max is 32"),
        "{e}"
    );
    let reduce = limits_of(1024, 64);
    let e = resolve(
        &ask(1, TeamSize::Fixed(1024), TeamSize::Fixed(1)),
        &reduce,
        &what,
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("49152 bytes of shared memory at 64 bytes per thread"),
        "{e}"
    );
    assert!(e.contains("team_size_max is 768"), "{e}");
}

#[test]
fn scratch_beyond_shared_memory_names_both_and_any_other_is_not_built_yet() {
    let mut big = ask(1, TeamSize::Fixed(128), TeamSize::Fixed(1));
    big.scratch[0] = ScratchRequest {
        per_team: 200 << 10,
        per_thread: 256,
    };
    let e = resolve(&big, &H100, &what).unwrap_err().to_string();
    assert!(
        e.contains("level-0 scratch of 237568 bytes per team"),
        "{e}"
    );
    assert!(
        e.contains("204800 per team + 256 per thread x 128 threads"),
        "{e}"
    );
    assert!(e.contains("at most 232448 bytes of shared memory"), "{e}");
    for level in 0..2 {
        let mut small = ask(1, TeamSize::Auto, TeamSize::Auto);
        small.scratch[level] = ScratchRequest {
            per_team: 1024,
            per_thread: 0,
        };
        match resolve(&small, &H100, &what) {
            Err(Error::Unsupported { what, reason }) => {
                assert!(what.contains("on Cuda"), "{what}");
                assert!(
                    reason.contains("scratch memory on Cuda is not built yet"),
                    "{reason}"
                );
                assert!(
                    reason.contains(&format!("level {level}: 1024 bytes")),
                    "{reason}"
                );
            }
            other => panic!("expected Unsupported, got {other:?}"),
        }
    }
}
