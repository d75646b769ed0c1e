//! Tests of `shape.rs` on an H100-like device (1024 threads per block, 48 KiB of shared memory per
//! block, 227 KiB opted in) and on an MI250X-like one (wavefronts of 64, 1024 threads per block,
//! 64 KiB of LDS per block).

use super::scratch::ScratchLayout;
use super::shape::*;
use crate::backend::gpu::arch::GpuArch;
use crate::error::Error;
use crate::policy::{ScratchRequest, TeamSize};

fn limits_of(max_threads: u32, value_size: usize) -> BlockLimits {
    BlockLimits {
        arch: GpuArch::CUDA,
        max_threads,
        shared_per_block: 48 << 10,
        shared_optin: 227 << 10,
        static_shared: 0,
        value_size,
    }
}

const H100: BlockLimits = BlockLimits {
    arch: GpuArch::CUDA,
    max_threads: 1024,
    shared_per_block: 48 << 10,
    shared_optin: 227 << 10,
    static_shared: 0,
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
            vector_length: 1,
            scratch: ScratchLayout {
                team_size: 256,
                ..ScratchLayout::default()
            }
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
fn scratch_beyond_shared_memory_names_the_request_the_patterns_need_and_the_limit() {
    let mut big = ask(1, TeamSize::Fixed(128), TeamSize::Fixed(1));
    big.scratch[0] = ScratchRequest {
        per_team: 200 << 10,
        per_thread: 250,
    };
    let e = resolve(&big, &H100, &what).unwrap_err().to_string();
    assert!(
        e.contains("level-0 scratch of 237568 bytes per team"),
        "{e}"
    );
    assert!(
        e.contains("204800 per team + 250 per thread x 128 threads, each rounded up to 8"),
        "{e}"
    );
    assert!(e.contains("at most 232448 bytes of shared memory"), "{e}");
    assert!(e.contains("parallel_for \"t\" on Cuda"), "{e}");
    // A reduction's values come after the scratch; the function's static memory comes off.
    let mut fits = ask(1, TeamSize::Fixed(128), TeamSize::Fixed(2));
    fits.scratch[0] = ScratchRequest {
        per_team: 225 << 10,
        per_thread: 0,
    };
    assert!(resolve(&fits, &H100, &what).is_ok());
    let reduce = BlockLimits {
        static_shared: 1024,
        ..limits_of(1024, 16)
    };
    let e = resolve(&fits, &reduce, &what).unwrap_err().to_string();
    assert!(
        e.contains("the reduction's 4096 bytes after it (a value of 16 bytes per thread)"),
        "{e}"
    );
    assert!(e.contains("(1024 of them the kernel's own)"), "{e}");
    // The limits say what is left for level 0.
    assert_eq!(
        limits(1, &reduce).scratch_max,
        [(227 << 10) - 1024, usize::MAX]
    );
}

#[test]
fn scratch_within_the_limits_is_laid_out_for_the_team() {
    let mut both = ask(10, TeamSize::Fixed(64), TeamSize::Fixed(4));
    both.scratch = [
        ScratchRequest {
            per_team: 100 << 10,
            per_thread: 12,
        },
        ScratchRequest {
            per_team: 1 << 20,
            per_thread: 1000,
        },
    ];
    let shape = resolve(&both, &H100, &what).unwrap();
    let s = shape.scratch;
    assert_eq!(
        (s.team, s.thread, s.team_size),
        ([100 << 10, 1 << 20], [16, 1000], 64)
    );
    assert_eq!(s.pattern_offset(), (100 << 10) + 64 * 16);
    assert_eq!(s.block_stride, (1 << 20) + 64 * 1000);
    // Exactly the opt-in memory fits.
    let mut exact = ask(1, TeamSize::Fixed(1), TeamSize::Fixed(1));
    exact.scratch[0] = ScratchRequest {
        per_team: 227 << 10,
        per_thread: 0,
    };
    assert!(resolve(&exact, &H100, &what).is_ok());
    exact.scratch[0].per_thread = 1;
    assert!(resolve(&exact, &H100, &what).is_err());
    // A level-1 size that overflows is an error naming the level.
    let mut huge = ask(1, TeamSize::Fixed(1024), TeamSize::Fixed(1));
    huge.scratch[1] = ScratchRequest {
        per_team: 0,
        per_thread: usize::MAX / 16,
    };
    let e = resolve(&huge, &H100, &what).unwrap_err().to_string();
    assert!(e.contains("level-1 scratch of 0 bytes per team"), "{e}");
}

/// One GCD of an MI250X (gfx90a): wavefronts of 64, blocks of up to 1024 threads, 64 KiB of LDS
/// per block with no opt-in.
const MI250X: BlockLimits = BlockLimits {
    arch: GpuArch::hip(64),
    max_threads: 1024,
    shared_per_block: 64 << 10,
    shared_optin: 64 << 10,
    static_shared: 0,
    value_size: 0,
};

fn what_hip() -> String {
    "parallel_for \"t\" on HIP".into()
}

#[test]
fn on_a_cdna_gpu_a_thread_may_have_a_whole_wavefront_of_vector_lanes() {
    let l = limits(64, &MI250X);
    assert_eq!(
        (
            l.team_size_max,
            l.team_size_recommended,
            l.vector_length_max
        ),
        (16, 4, 64)
    );
    assert_eq!(l.scratch_max, [64 << 10, usize::MAX]);
    let shape = resolve(
        &ask(5, TeamSize::Auto, TeamSize::Fixed(64)),
        &MI250X,
        &what_hip,
    )
    .unwrap();
    assert_eq!(
        (shape.team_size, shape.vector_length, shape.block()),
        (4, 64, 256)
    );
    // Beyond the wavefront: the error names HIP, the limit and the wavefront.
    let e = resolve(
        &ask(5, TeamSize::Auto, TeamSize::Fixed(128)),
        &MI250X,
        &what_hip,
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("a vector length of 128 on HIP, whose limit is 64")
            && e.contains("lanes of one wavefront"),
        "{e}"
    );
    // RDNA's wavefronts of 32 bound it as a warp does.
    let rdna = BlockLimits {
        arch: GpuArch::hip(32),
        ..MI250X
    };
    assert!(
        resolve(
            &ask(1, TeamSize::Auto, TeamSize::Fixed(64)),
            &rdna,
            &what_hip
        )
        .is_err()
    );
}

#[test]
fn on_a_cdna_gpu_level_0_scratch_and_a_reductions_values_share_64_kib_of_lds() {
    let mut ask_scratch = ask(1, TeamSize::Fixed(256), TeamSize::Fixed(1));
    ask_scratch.scratch[0] = ScratchRequest {
        per_team: 63 << 10,
        per_thread: 0,
    };
    assert!(resolve(&ask_scratch, &MI250X, &what_hip).is_ok());
    // 256 doubles after 63 KiB: 1 KiB over the 64 KiB.
    let reduce = BlockLimits {
        value_size: 8,
        ..MI250X
    };
    let e = resolve(&ask_scratch, &reduce, &what_hip)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("the reduction's 2048 bytes after it")
            && e.contains("on HIP, where a block has at most 65536 bytes of shared memory"),
        "{e}"
    );
    // A reduction's values alone: 64 KiB holds 8192 doubles, more than a block's threads.
    assert_eq!(limits(1, &reduce).team_size_max, 1024);
}
