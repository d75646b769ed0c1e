// Open traits whose trusted methods take ferrokkos's token: a user's type may implement the trait
// (a reducer of its own, a target or a place for a result, a policy), but overriding a trusted
// method is refused, and the message names the token's type, `SealedMethod`, that no other crate
// can name or make.
use ferrokkos::{Reducer, Result};
use ferrokkos::traits::{ParallelFor, ReduceTarget, ResultPlace};

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

struct Into;

impl ReduceTarget for Into {
    type Reducer = MyMax;
    type Output = ();
    type Sink = ();
    fn split(self) -> (MyMax, ()) {
        (MyMax, ())
    }
    fn deliver((): (), _: f64) -> Result<()> {
        Ok(())
    }
    fn device_place(_: &(), _: u64) -> Option<(u64, ())> {
        Some((0, ()))
    }
}

struct MyPolicy;

impl<K> ParallelFor<K> for MyPolicy {
    fn launch_for(self, _: &str, _: K) -> Result<()> {
        Ok(())
    }
    fn prepare_for(&self, _: &str, _: &K) -> Result<Option<String>> {
        Ok(None)
    }
}

fn main() {}
