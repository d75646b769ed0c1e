//! The mesh cut into one chunk per rank (TeaLeaf's `decompose_field`): `x_chunks` by
//! `y_chunks` chunks, the split whose chunks have the least perimeter per area, numbered x
//! first; cells that do not divide evenly go one each to the first chunks of a row or column.

use crate::chunk::Face;

/// One rank's chunk of the mesh.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tile {
    /// The chunk's number (its rank).
    pub chunk: usize,
    /// Chunks in x and in y.
    pub chunks: (usize, usize),
    /// Interior cells in x.
    pub x_cells: usize,
    /// Interior cells in y.
    pub y_cells: usize,
    /// The first interior column's index in the global mesh.
    pub left: usize,
    /// The first interior row's index in the global mesh.
    pub bottom: usize,
    /// The neighbouring chunk of each face ([`Face`] order); `None`: the domain's boundary.
    pub neighbours: [Option<usize>; 4],
}

impl Tile {
    /// The whole mesh as one chunk.
    pub fn whole(x_cells: usize, y_cells: usize) -> Tile {
        Tile {
            chunk: 0,
            chunks: (1, 1),
            x_cells,
            y_cells,
            left: 0,
            bottom: 0,
            neighbours: [None; 4],
        }
    }

    /// The neighbour across `face`.
    pub fn neighbour(&self, face: Face) -> Option<usize> {
        self.neighbours[face as usize]
    }
}

/// How many chunks in x and in y: of the splits `xx * yy = chunks`, the one with the least
/// `2 (w² + h²) / (w h)` for chunk width `w` and height `h` (TeaLeaf's metric; the first of
/// equals, smallest `xx` first).
pub fn split(x_cells: usize, y_cells: usize, chunks: usize) -> (usize, usize) {
    let (xc, yc) = (x_cells as f64, y_cells as f64);
    let mut best = (1, chunks.max(1));
    let mut best_metric = f64::MAX;
    for xx in (1..=chunks).filter(|&xx| chunks.is_multiple_of(xx)) {
        let yy = chunks / xx;
        let (w, h) = (xc / xx as f64, yc / yy as f64);
        let perimeter = (w * w + h * h) * 2.0;
        let metric = perimeter / (w * h);
        if metric < best_metric {
            best = (xx, yy);
            best_metric = metric;
        }
    }
    best
}

/// The chunk of rank `rank` of `ranks`, or an error naming why the mesh cannot be cut so (a
/// chunk narrower than the halo, since a halo update copies `halo_depth` interior cells).
pub fn tile(
    x_cells: usize,
    y_cells: usize,
    halo_depth: usize,
    ranks: usize,
    rank: usize,
) -> Result<Tile, String> {
    if rank >= ranks {
        return Err(format!("rank {rank} of {ranks} ranks"));
    }
    let (x_chunks, y_chunks) = split(x_cells, y_cells, ranks);
    let (dx, dy) = (x_cells / x_chunks, y_cells / y_chunks);
    let (mod_x, mod_y) = (x_cells % x_chunks, y_cells % y_chunks);
    if dx < halo_depth || dy < halo_depth {
        return Err(format!(
            "{x_cells}x{y_cells} cells cut into {x_chunks}x{y_chunks} chunks for {ranks} ranks \
             leaves chunks of {dx}x{dy} cells, fewer than the halo depth {halo_depth}"
        ));
    }
    let (xx, yy) = (rank % x_chunks, rank / x_chunks);
    let neighbours = [
        (xx > 0).then(|| rank - 1),
        (xx + 1 < x_chunks).then(|| rank + 1),
        (yy > 0).then(|| rank - x_chunks),
        (yy + 1 < y_chunks).then(|| rank + x_chunks),
    ];
    Ok(Tile {
        chunk: rank,
        chunks: (x_chunks, y_chunks),
        x_cells: dx + usize::from(xx < mod_x),
        y_cells: dy + usize::from(yy < mod_y),
        left: xx * dx + xx.min(mod_x),
        bottom: yy * dy + yy.min(mod_y),
        neighbours,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn square_meshes_split_into_squares_where_they_can() {
        assert_eq!(split(512, 512, 1), (1, 1));
        assert_eq!(split(512, 512, 2), (1, 2));
        assert_eq!(split(512, 512, 4), (2, 2));
        assert_eq!(split(512, 512, 6), (2, 3));
        assert_eq!(split(4000, 4000, 16), (4, 4));
        assert_eq!(split(100, 10, 4), (4, 1));
    }

    #[test]
    fn tiles_cover_the_mesh_once_with_remainders_first() {
        let (x, y) = (10, 7);
        let tiles: Vec<Tile> = (0..6).map(|r| tile(x, y, 2, 6, r).unwrap()).collect();
        assert_eq!(tiles[0].chunks, (3, 2));
        let mut covered = vec![0; x * y];
        for t in &tiles {
            for j in t.bottom..t.bottom + t.y_cells {
                for k in t.left..t.left + t.x_cells {
                    covered[j * x + k] += 1;
                }
            }
        }
        assert!(covered.iter().all(|&c| c == 1), "{covered:?}");
        // 10 = 4 + 3 + 3 in x, 7 = 4 + 3 in y.
        let widths: Vec<usize> = tiles[..3].iter().map(|t| t.x_cells).collect();
        assert_eq!(widths, [4, 3, 3]);
        assert_eq!((tiles[0].y_cells, tiles[3].y_cells), (4, 3));
        assert_eq!((tiles[4].left, tiles[4].bottom), (4, 4));
        assert_eq!(tiles[4].neighbours, [Some(3), Some(5), Some(1), None]);
        assert_eq!(tiles[0].neighbours, [None, Some(1), None, Some(3)]);
    }

    #[test]
    fn chunks_thinner_than_the_halo_are_refused() {
        let e = tile(10, 10, 2, 32, 0).unwrap_err();
        assert!(e.contains("fewer than the halo depth 2"), "{e}");
        assert!(tile(10, 10, 2, 4, 4).unwrap_err().contains("rank 4 of 4"));
    }
}
