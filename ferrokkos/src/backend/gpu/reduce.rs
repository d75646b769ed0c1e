//! Reductions on a GPU, shared by the Range, MDRange and Team patterns: the reducer's device form,
//! the launch of a reduction whose value comes back to the host or stays in a device place, and
//! the read of a value from the pinned scratch.

use super::driver::Driver;
use super::instance::Instance;
use super::launch::{Done, Kind, Space, launch};
use crate::error::{Error, Result};
use crate::kernel::DeviceKernel;
use crate::reducer::{ReduceTarget, Reducer, ReducerCxx};
use crate::seal::Token;

/// The reducer's device description, or why it has none.
pub(crate) fn reducer_cxx<R: Reducer>(what: &dyn Fn() -> String) -> Result<ReducerCxx> {
    R::device_cxx(Token::new()).ok_or_else(|| no_device_form(what, std::any::type_name::<R>()))
}

/// The error for a reducer without a device form.
pub(crate) fn no_device_form(what: &dyn Fn() -> String, reducer: &str) -> Error {
    Error::Unsupported {
        what: what(),
        reason: format!(
            "the reducer {reducer} has no device form (`Custom` reducers of host closures and \
             values without a device type run only on host spaces; for the GPU, give a \
             DeviceValue type `#[device] impl DeviceJoin` and reduce with `Join`)"
        ),
    }
}

/// Reads the value a waited launch left in the pinned scratch.
pub(crate) fn read_value<R: Reducer, D: Driver>(
    done: Done<'_, D>,
    size: usize,
    what: &dyn Fn() -> String,
) -> Result<R::Value> {
    let Done::Waited(sub, pinned) = done else {
        return Err(Error::Internal {
            what: what(),
            reason: "the launch left no value for the host to read".into(),
        });
    };
    // SAFETY: the launch copied `size` bytes there and waited for the copy; the submission still
    // holds the queue's lock, so nothing overwrites them.
    let bytes = unsafe { std::slice::from_raw_parts(pinned, size) };
    let value = R::device_decode(bytes, Token::new()).ok_or_else(|| Error::Unsupported {
        what: what(),
        reason: "the reducer's value cannot be read back from the device".into(),
    });
    drop(sub);
    value
}

/// Runs a reduction (over a range, or a league of teams when `space.team` says so) whose value
/// comes back to the host or goes to a device place, and delivers it.
pub(crate) fn reduce_with<T: ReduceTarget, D: Driver>(
    inst: &Instance<D>,
    what: &dyn Fn() -> String,
    dk: &dyn DeviceKernel,
    target: T,
    space: Space<'_>,
) -> Result<T::Output> {
    let (reducer, sink) = target.split();
    reduce_into::<T, D>(inst, what, dk, (reducer, sink), space)
}

/// [`reduce_with`] of a target already split into its reducer and sink. A result that stays in a
/// device place is finalized there by the launch (the entry variant with the reducer's final
/// step, `UnitOptions::finalize`); a value that comes back is finalized here.
pub(crate) fn reduce_into<T: ReduceTarget, D: Driver>(
    inst: &Instance<D>,
    what: &dyn Fn() -> String,
    dk: &dyn DeviceKernel,
    (reducer, sink): (T::Reducer, T::Sink),
    space: Space<'_>,
) -> Result<T::Output> {
    T::check(&sink)?;
    let cxx = reducer_cxx::<T::Reducer>(what)?;
    let kind = match space.team {
        Some(_) => Kind::TeamReduce(&cxx),
        None => Kind::Reduce(&cxx),
    };
    if space.count > 0
        && let Some((place, output)) = T::device_place(&sink, Token::new())
    {
        if place.size != cxx.size {
            return Err(Error::Unsupported {
                what: what(),
                reason: format!(
                    "the result place holds {} bytes but the reducer's value has {}",
                    place.size, cxx.size
                ),
            });
        }
        // The result stays on the device: the join writes it into the View, asynchronously,
        // after the reducer's final step (every reducer with a device form has its final step
        // there too: `ReducerCxx::finalize`).
        launch(
            inst,
            what,
            dk,
            kind,
            std::any::type_name::<T::Reducer>(),
            space,
            Some(&place),
        )?;
        return Ok(output);
    }
    let mut value = if space.count == 0 {
        reducer.init()
    } else {
        let done = launch(
            inst,
            what,
            dk,
            kind,
            std::any::type_name::<T::Reducer>(),
            space,
            None,
        )?;
        read_value::<T::Reducer, _>(done, cxx.size, what)?
    };
    reducer.finalize(&mut value);
    T::deliver(sink, value)
}
