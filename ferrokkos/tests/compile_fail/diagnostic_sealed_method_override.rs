// Open traits whose trusted methods take ferrokkos's token: a user's type may implement the trait
// (a reducer of its own, a place for a result), but overriding a trusted method is refused, and the
// message names the token's type, `SealedMethod`, that no other crate can name or make.
use ferrokkos::{Reducer, ResultPlace, Result};

struct MyMax;

impl Reducer for MyMax {
    type Value = f64;
    fn init(&self) -> f64 {
        f64::MIN
    }
    fn join(&self, dst: &mut f64, src: &f64) {
        *dst = dst.max(*src);
    }
    fn device_cxx() -> Option<String> {
        Some("struct fk_evil {};".into())
    }
}

struct Slot;

impl ResultPlace<f64> for Slot {
    fn store(self, _: f64) -> Result<()> {
        Ok(())
    }
    fn device_place(&self, _: ()) -> Option<u64> {
        Some(0)
    }
}

fn main() {}
