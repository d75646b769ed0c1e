//! The ferrokkos device header: what every generated translation unit starts with.

/// The language a unit's text is compiled as: the target prelude of its device header
/// (`device/target_cuda.cuh`, `device/target_hip.h`) and its program's file name. The entries and
/// the rest of the header are the same text for both.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Target {
    /// CUDA C++ for NVRTC (NVIDIA GPUs).
    #[default]
    Cuda,
    /// HIP C++ for hiprtc (AMD GPUs).
    Hip,
}

impl Target {
    /// The target prelude: the warp's width (`FK_WARP`), lane masks and one-word shuffles.
    fn prelude(self) -> &'static str {
        match self {
            Target::Cuda => include_str!("device/target_cuda.cuh"),
            Target::Hip => include_str!("device/target_hip.h"),
        }
    }

    /// The extension of a program's file name: `cu` or `hip`.
    pub fn extension(self) -> &'static str {
        match self {
            Target::Cuda => "cu",
            Target::Hip => "hip",
        }
    }
}

/// The CUDA device header with every part (`device/*`, joined in this order): Rust-named typedefs,
/// the fault record and type traits (`types.cuh`); the target prelude (`target_cuda.cuh`: the warp,
/// lane masks, shuffles); the `fk::View` descriptor per layout, Rust semantics for casts and
/// shifts (`views.cuh`); the float and integer methods (`math.cuh`); complex numbers
/// (`complex.cuh`); atomics (`atomics.cuh`);
/// reducers (`reducers.cuh`); block-level reduction and scan (`block.cuh`); team collectives
/// (`team.cuh`); UniqueTokens (`token.cuh`); Bitsets (`bitset.cuh`); UnorderedMaps
/// (`unordered_map.cuh`); random pools (`random.cuh`); then the end of the include guard that
/// `types.cuh` opens.
pub const DEVICE_HEADER: &str = concat!(
    include_str!("device/types.cuh"),
    "\n",
    include_str!("device/target_cuda.cuh"),
    "\n",
    include_str!("device/views.cuh"),
    "\n",
    include_str!("device/math.cuh"),
    "\n",
    include_str!("device/complex.cuh"),
    "\n",
    include_str!("device/atomics.cuh"),
    "\n",
    include_str!("device/reducers.cuh"),
    "\n",
    include_str!("device/block.cuh"),
    "\n",
    include_str!("device/team.cuh"),
    "\n",
    include_str!("device/token.cuh"),
    "\n",
    include_str!("device/bitset.cuh"),
    "\n",
    include_str!("device/unordered_map.cuh"),
    "\n",
    include_str!("device/random.cuh"),
    "\n#endif  // FERROKKOS_DEVICE_CUH\n",
);

/// The end of the header's include guard (the last line of [`DEVICE_HEADER`]).
const GUARD_END: &str = "\n#endif  // FERROKKOS_DEVICE_CUH\n";

/// The optional parts of the device header a program needs: NVRTC parses every program's text
/// one program at a time (its C++ front end is serialized across threads), so a part no kernel of
/// the program uses is left out (`complex.cuh` and `atomics.cuh` are a fifth of the front end's
/// time for the header).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct HeaderParts {
    /// Complex numbers (`c32`, `c64`: `complex.cuh`).
    pub(crate) complex: bool,
    /// Atomics (`fk::atomic_*`: `atomics.cuh`).
    pub(crate) atomics: bool,
    /// Team collectives and scratch (`fk::Team`, `fk::team_*`, `fk::vector_*`,
    /// `fk::scratch_view`, `fk::set_scratch`: `team.cuh`).
    pub(crate) team: bool,
    /// UniqueTokens (`fk::UniqueToken`, `fk::TokenHold`: `token.cuh`).
    pub(crate) tokens: bool,
    /// Bitsets (`fk::Bitset`, `fk::bitset_*`: `bitset.cuh`).
    pub(crate) bitsets: bool,
    /// UnorderedMaps (`fk::UnorderedMap`, `fk::map_*`: `unordered_map.cuh`).
    pub(crate) maps: bool,
    /// Random pools (`fk::RandomPool`, `fk::RandHold`: `random.cuh`).
    pub(crate) random: bool,
}

impl HeaderParts {
    /// The parts that generated C++ `text` uses. A complex value's type is spelled `c32` or `c64`
    /// (or `fk::complex<..>`) wherever it is declared, and every atomic operation is a call of an
    /// `fk::atomic_` function; a mention anywhere (even in a name) includes the part.
    pub(crate) fn used_by(text: &str) -> HeaderParts {
        HeaderParts {
            complex: text.contains("c32") || text.contains("c64") || text.contains("complex"),
            atomics: text.contains("atomic_"),
            team: text.contains("fk::Team")
                || text.contains("fk::team_")
                || text.contains("fk::vector_")
                || text.contains("fk::scratch_view")
                || text.contains("fk::set_scratch"),
            tokens: text.contains("fk::UniqueToken") || text.contains("fk::TokenHold"),
            bitsets: text.contains("fk::Bitset") || text.contains("fk::bitset_"),
            maps: text.contains("fk::UnorderedMap") || text.contains("fk::map_"),
            random: text.contains("fk::RandomPool") || text.contains("fk::RandHold"),
        }
    }

    /// The parts either needs.
    pub(crate) fn union(self, other: HeaderParts) -> HeaderParts {
        HeaderParts {
            complex: self.complex || other.complex,
            atomics: self.atomics || other.atomics,
            team: self.team || other.team,
            tokens: self.tokens || other.tokens,
            bitsets: self.bitsets || other.bitsets,
            maps: self.maps || other.maps,
            random: self.random || other.random,
        }
    }
}

/// The device header of `target` with the optional `parts` (in [`DEVICE_HEADER`]'s order).
pub(crate) fn device_header(parts: HeaderParts, target: Target) -> String {
    let mut out = String::with_capacity(DEVICE_HEADER.len());
    out.push_str(include_str!("device/types.cuh"));
    out.push('\n');
    out.push_str(target.prelude());
    out.push('\n');
    out.push_str(include_str!("device/views.cuh"));
    out.push('\n');
    out.push_str(include_str!("device/math.cuh"));
    out.push('\n');
    if parts.complex {
        out.push_str(include_str!("device/complex.cuh"));
    }
    out.push('\n');
    if parts.atomics {
        out.push_str(include_str!("device/atomics.cuh"));
    }
    out.push('\n');
    out.push_str(include_str!("device/reducers.cuh"));
    out.push('\n');
    out.push_str(include_str!("device/block.cuh"));
    out.push('\n');
    if parts.team {
        out.push_str(include_str!("device/team.cuh"));
    }
    out.push('\n');
    if parts.tokens {
        out.push_str(include_str!("device/token.cuh"));
    }
    out.push('\n');
    if parts.bitsets {
        out.push_str(include_str!("device/bitset.cuh"));
    }
    out.push('\n');
    if parts.maps {
        out.push_str(include_str!("device/unordered_map.cuh"));
    }
    out.push('\n');
    if parts.random {
        out.push_str(include_str!("device/random.cuh"));
    }
    out.push_str(GUARD_END);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// With every part, the header is the full one; parts are found by what the code mentions.
    #[test]
    fn header_parts_follow_what_the_code_uses() {
        let all = HeaderParts {
            complex: true,
            atomics: true,
            team: true,
            tokens: true,
            bitsets: true,
            maps: true,
            random: true,
        };
        assert_eq!(device_header(all, Target::Cuda), DEVICE_HEADER);
        let none = device_header(HeaderParts::default(), Target::Cuda);
        assert!(!none.contains("typedef fk::complex<f64> c64;"));
        assert!(!none.contains("atomic_add("));
        assert!(none.len() < DEVICE_HEADER.len());
        assert_eq!(
            HeaderParts::used_by("fk::View<const c64, 1, fk::LayoutRight> z"),
            HeaderParts {
                complex: true,
                ..HeaderParts::default()
            }
        );
        assert_eq!(
            HeaderParts::used_by("fk::atomic_add(&h(b), 1u);"),
            HeaderParts {
                atomics: true,
                ..HeaderParts::default()
            }
        );
        assert_eq!(
            HeaderParts::used_by("fk::TokenHold id(token);"),
            HeaderParts {
                tokens: true,
                ..HeaderParts::default()
            }
        );
        assert_eq!(
            HeaderParts::used_by("const bool fk_bit = fk::bitset_set(seen, i);"),
            HeaderParts {
                bitsets: true,
                ..HeaderParts::default()
            }
        );
        assert_eq!(
            HeaderParts::used_by("y(i) = a * x(i);"),
            HeaderParts::default()
        );
    }
}
