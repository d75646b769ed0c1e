//! The field summary (TeaLeaf's `field_summary`): sums over the interior of the volume, the
//! mass, the internal energy and the temperature.

use ferrokkos::prelude::*;

use crate::Space;
use crate::chunk::Chunk;
use crate::format::sci;
use crate::profile::Phase;

/// The sums of a field summary.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Summary {
    /// Σ volume.
    pub volume: f64,
    /// Σ volume · density.
    pub mass: f64,
    /// Σ mass · energy0 (the initial energy: TeaLeaf's internal energy).
    pub internal_energy: f64,
    /// Σ mass · u: the value checked against the problems table.
    pub temperature: f64,
}

impl Summary {
    /// The mean density (mass / volume).
    pub fn density(&self) -> f64 {
        self.mass / self.volume
    }

    /// The header of [`Summary::line`].
    pub fn header() -> String {
        format!(
            " {:>11}{:>25}{:>25}{:>25}{:>25}{:>25}",
            "", "Volume", "Mass", "Density", "Energy", "U"
        )
    }

    /// One line of the summary table after `step` steps (the reference TeaLeaf's columns).
    pub fn line(&self, step: usize) -> String {
        format!(
            " step: {step:>5}{:>25}{:>25}{:>25}{:>25}{:>25}",
            sci(self.volume, 16),
            sci(self.mass, 16),
            sci(self.density(), 16),
            sci(self.internal_energy, 16),
            sci(self.temperature, 16)
        )
    }
}

impl<S: Space> Chunk<S> {
    /// The field summary of the chunk's interior.
    pub fn field_summary(&self) -> crate::Result<Summary> {
        let local = self.timed("field_summary", Phase::Summary, || {
            let (volume, density, energy0, u) =
                (&self.volume, &self.density, &self.energy0, &self.u);
            let (vol, mass, ie, temp) = self.launch.reduce(
                "field_summary",
                self.interior()?,
                kernel!(
                    |(j, k), vol: &mut f64, mass: &mut f64, ie: &mut f64, temp: &mut f64| {
                        let cell_volume = volume[(j, k)];
                        let cell_mass = cell_volume * density[(j, k)];
                        *vol += cell_volume;
                        *mass += cell_mass;
                        *ie += cell_mass * energy0[(j, k)];
                        *temp += cell_mass * u[(j, k)];
                    }
                ),
                (Sum::new(), Sum::new(), Sum::new(), Sum::new()),
                (0.0, 0.0, 0.0, 0.0),
            )?;
            Ok([vol, mass, ie, temp])
        })?;
        let [volume, mass, internal_energy, temperature] = self.sum_over_ranks(local)?;
        Ok(Summary {
            volume,
            mass,
            internal_energy,
            temperature,
        })
    }
}
