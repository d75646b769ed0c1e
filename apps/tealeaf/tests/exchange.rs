//! The halo exchange between chunks: every halo cell of every rank ends up with the value the
//! single-chunk mesh has there (the neighbour's interior, or the reflection at the boundary).

use std::rc::Rc;
use std::sync::OnceLock;

use ferrokkos::{ExecutionSpace, InitSettings, Runtime, Serial};
use tealeaf::chunk::Chunk;
use tealeaf::comms::Comms;
use tealeaf::comms::local::LocalComms;
use tealeaf::decompose;
use tealeaf::halo::FieldId;
use tealeaf::settings::Settings;

fn runtime() -> &'static Runtime {
    static RUNTIME: OnceLock<Runtime> = OnceLock::new();
    RUNTIME.get_or_init(|| ferrokkos::initialize(InitSettings::new().num_threads(2)).unwrap())
}

/// The value at global interior cell `(gy, gx)`, different for each field.
fn value(field: usize, gy: i64, gx: i64) -> f64 {
    (field * 1_000_000) as f64 + (gy * 1000 + gx) as f64
}

/// What the one-chunk mesh of `n` cells holds at global index `g` (which may lie in the halo):
/// the reflection of the interior at the boundary.
fn reflect(g: i64, n: i64) -> i64 {
    if g < 0 {
        -1 - g
    } else if g >= n {
        2 * n - 1 - g
    } else {
        g
    }
}

/// Splits an `nx` x `ny` mesh over `ranks` thread ranks, fills each chunk's interior, updates
/// the halos of `fields` to `depth`, and checks every cell within `depth` of the interior.
fn check(nx: usize, ny: usize, ranks: usize, fields: &[FieldId], depth: usize) {
    runtime();
    let settings = Settings {
        x_cells: nx,
        y_cells: ny,
        ..Settings::default()
    };
    let group = LocalComms::group(ranks);
    std::thread::scope(|s| {
        let handles: Vec<_> = group
            .into_iter()
            .map(|comms| {
                let settings = &settings;
                s.spawn(move || {
                    let tile = decompose::tile(nx, ny, 2, ranks, comms.rank()).unwrap();
                    let comms = Rc::new(comms);
                    let shared: Rc<dyn Comms> = comms.clone();
                    let exec = Serial::default_instance().unwrap();
                    let chunk = Chunk::of_tile(exec, settings, &tile, shared).unwrap();
                    let hd = chunk.halo_depth as i64;
                    let (ox, oy) = (tile.left as i64 - hd, tile.bottom as i64 - hd);
                    for (i, &id) in fields.iter().enumerate() {
                        let mut g = chunk.field(id).host_mut().unwrap();
                        for j in 0..chunk.y {
                            for k in 0..chunk.x {
                                let (gy, gx) = (j as i64 + oy, k as i64 + ox);
                                let interior = (hd..chunk.y as i64 - hd).contains(&(j as i64))
                                    && (hd..chunk.x as i64 - hd).contains(&(k as i64));
                                g[(j, k)] = if interior { value(i, gy, gx) } else { -1.0 };
                            }
                        }
                    }
                    chunk.update_halo(fields, depth).unwrap();
                    let d = depth as i64;
                    for (i, &id) in fields.iter().enumerate() {
                        let g = chunk.field(id).host().unwrap();
                        for j in hd - d..chunk.y as i64 - hd + d {
                            for k in hd - d..chunk.x as i64 - hd + d {
                                let (gy, gx) = (j + oy, k + ox);
                                let want = value(i, reflect(gy, ny as i64), reflect(gx, nx as i64));
                                assert_eq!(
                                    g[(j as usize, k as usize)],
                                    want,
                                    "rank {} field {id:?} cell ({j}, {k}) = global ({gy}, {gx})",
                                    tile.chunk
                                );
                            }
                        }
                    }
                    drop(chunk);
                    Rc::try_unwrap(comms).unwrap().finish();
                })
            })
            .collect();
        for h in handles {
            h.join().unwrap();
        }
    });
}

#[test]
fn two_ranks_one_field_depth_one() {
    check(12, 10, 2, &[FieldId::U], 1);
}

#[test]
fn four_ranks_three_fields_depth_two_corners_included() {
    check(
        11,
        9,
        4,
        &[FieldId::Density, FieldId::Energy0, FieldId::Energy1],
        2,
    );
}

#[test]
fn six_ranks_uneven_chunks() {
    check(13, 7, 6, &[FieldId::P, FieldId::U], 2);
}

#[test]
fn whole_rows_of_a_field_are_one_contiguous_block() {
    // What lets the bottom and top exchange through NCCL send a field's rows unpacked.
    runtime();
    let f = tealeaf::chunk::Field::<Serial>::new("f", [8, 6]).unwrap();
    let rows = ferrokkos::subview(&f, (2..4, ferrokkos::ALL)).unwrap();
    assert!(rows.span_is_contiguous());
    assert_eq!(
        (rows.size(), rows.as_ptr()),
        (12, f.as_ptr().wrapping_add(12))
    );
    let columns = ferrokkos::subview(&f, (ferrokkos::ALL, 2..4)).unwrap();
    assert!(!columns.span_is_contiguous());
}
