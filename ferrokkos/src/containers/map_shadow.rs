//! An UnorderedMap in the typed shadow: a kernel's `m.insert(k, v)`, `m.find(k)`, ... on a
//! captured [`UnorderedMap`](super::UnorderedMap) reach these shadows through `MethodReceiver` and
//! `DeviceMethod` (the path of every method call that is not a built-in) and emit calls of
//! `device/unordered_map.cuh`. The host body calls the same methods of [`MapAccess`](super::MapAccess),
//! so both take and give the same types.

use std::marker::PhantomData;

use super::map_types::{InsertResult, MapKey, MapValue};
use crate::kernel::device_fn::{Ch, DeviceMethod, MethodReceiver};
use crate::kernel::expr::Expr;
use crate::kernel::shadow::{Takes, construct, field_value, local_value, text_value};
use crate::kernel::value::DeviceValue;

/// The C++ side of a captured map (an `fk::UnorderedMap<K, V>` parameter).
#[derive(Clone, Copy, Debug)]
pub struct MapCxx;

/// The shadow of a captured UnorderedMap with keys `K` and values `V`.
pub struct MapShadow<K, V> {
    map: Expr<MapCxx>,
    _entries: PhantomData<fn() -> (K, V)>,
}

impl<K, V> Clone for MapShadow<K, V> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<K, V> Copy for MapShadow<K, V> {}

impl<K: MapKey, V: MapValue> MapShadow<K, V> {
    /// The map kernel parameter named `cxx_name`.
    pub(crate) fn name(cxx_name: &str) -> Self {
        MapShadow {
            map: Expr::name(cxx_name),
            _entries: PhantomData,
        }
    }

    /// The parameter's C++ type.
    pub(crate) fn cxx_type() -> String {
        format!(
            "const fk::UnorderedMap<{}, {}>",
            K::cxx_name(),
            <V::Slot as DeviceValue>::cxx_name()
        )
    }

    /// `fk::<f>(map, args)` as a local of type `ty`, evaluated where the body calls it.
    fn call<T>(self, ty: &str, f: &str, args: &[String]) -> Expr<T> {
        let mut all = vec![self.map.text()];
        all.extend_from_slice(args);
        local_value(ty, "fk_map", format!("fk::{f}({})", all.join(", ")))
    }

    /// An insert: the device's `fk::MapInsert` as an [`InsertResult`].
    fn insert_with(self, k: Expr<K>, v: String, store: bool) -> Expr<InsertResult> {
        let r: Expr<InsertResult> = self.call(
            "fk::MapInsert",
            "map_insert",
            &[k.text(), v, store.to_string()],
        );
        let r = r.text();
        let field = |f: &str| field_value(text_value::<u64>(format!("{r}.{f}")));
        construct(
            || unreachable!("a struct literal's check is never run"),
            &[("index", field("index")), ("status", field("status"))],
        )
    }

    /// `m.find(k)`.
    pub fn __fkt_find(self, k: Expr<K>) -> Expr<usize> {
        self.call("usize", "map_find", &[k.text()])
    }

    /// `m.exists(k)`.
    pub fn __fkt_exists(self, k: Expr<K>) -> Expr<bool> {
        self.call("bool", "map_exists", &[k.text()])
    }

    /// `m.erase(k)`.
    pub fn __fkt_erase(self, k: Expr<K>) -> Expr<bool> {
        self.call("bool", "map_erase", &[k.text()])
    }

    /// `m.valid_at(i)`.
    pub fn __fkt_valid_at(self, i: Expr<usize>) -> Expr<bool> {
        self.call("bool", "map_valid_at", &[i.text()])
    }

    /// `m.key_at(i)`.
    pub fn __fkt_key_at(self, i: Expr<usize>) -> Expr<K> {
        self.call(&K::cxx_name(), "map_key_at", &[i.text()])
    }

    /// `m.capacity()`.
    pub fn __fkt_capacity(self) -> Expr<usize> {
        self.call("usize", "map_capacity", &[])
    }

    /// `m.find(k)` for an argument of a known type.
    pub fn __fk_find<A>(self, k: Expr<A>) -> Expr<usize>
    where
        K: Takes<A>,
    {
        self.__fkt_find(K::take(k))
    }

    /// `m.exists(k)` for an argument of a known type.
    pub fn __fk_exists<A>(self, k: Expr<A>) -> Expr<bool>
    where
        K: Takes<A>,
    {
        self.__fkt_exists(K::take(k))
    }

    /// `m.erase(k)` for an argument of a known type.
    pub fn __fk_erase<A>(self, k: Expr<A>) -> Expr<bool>
    where
        K: Takes<A>,
    {
        self.__fkt_erase(K::take(k))
    }

    /// `m.valid_at(i)` for an argument of a known type.
    pub fn __fk_valid_at<A>(self, i: Expr<A>) -> Expr<bool>
    where
        usize: Takes<A>,
    {
        self.__fkt_valid_at(usize::take(i))
    }

    /// `m.key_at(i)` for an argument of a known type.
    pub fn __fk_key_at<A>(self, i: Expr<A>) -> Expr<K>
    where
        usize: Takes<A>,
    {
        self.__fkt_key_at(usize::take(i))
    }

    /// `m.capacity()`.
    pub fn __fk_capacity(self) -> Expr<usize> {
        self.__fkt_capacity()
    }
}

impl<K: MapKey> MapShadow<K, ()> {
    /// `s.insert(k)` (a set).
    pub fn __fkt_insert(self, k: Expr<K>) -> Expr<InsertResult> {
        self.insert_with(k, "(u8)0".to_string(), false)
    }

    /// `s.insert(k)` for an argument of a known type.
    pub fn __fk_insert<A>(self, k: Expr<A>) -> Expr<InsertResult>
    where
        K: Takes<A>,
    {
        self.__fkt_insert(K::take(k))
    }
}

impl<K: MapKey, V: DeviceValue + MapValue<Slot = V>> MapShadow<K, V> {
    /// `m.insert(k, v)`.
    pub fn __fkt_insert(self, k: Expr<K>, v: Expr<V>) -> Expr<InsertResult> {
        self.insert_with(k, v.text(), true)
    }

    /// `m.insert(k, v)` for arguments of known types.
    pub fn __fk_insert<A, B>(self, k: Expr<A>, v: Expr<B>) -> Expr<InsertResult>
    where
        K: Takes<A>,
        V: Takes<B>,
    {
        self.__fkt_insert(K::take(k), V::take(v))
    }

    /// `m.value_at(i)`.
    pub fn __fkt_value_at(self, i: Expr<usize>) -> Expr<V> {
        self.call(&V::cxx_name(), "map_value_at", &[i.text()])
    }

    /// `m.value_at(i)` for an argument of a known type.
    pub fn __fk_value_at<A>(self, i: Expr<A>) -> Expr<V>
    where
        usize: Takes<A>,
    {
        self.__fkt_value_at(usize::take(i))
    }
}

// SAFETY: a map's shadow is called as itself.
#[diagnostic::do_not_recommend]
unsafe impl<K, V> MethodReceiver for MapShadow<K, V> {
    type Target = MapShadow<K, V>;
    fn receive(self) -> Self {
        self
    }
}

/// A map's kernel methods, by name ([`Ch`] lists).
macro_rules! map_methods {
    ($($($c:literal)*;)*) => {$(
        // SAFETY: `MapShadow::__fk_<name>` / `__fkt_<name>` emit the device form of the
        // `MapAccess` method of that name (`device/unordered_map.cuh` and
        // `containers/map_access.rs` implement one semantics).
        #[diagnostic::do_not_recommend]
        unsafe impl<K, V> DeviceMethod<map_methods!(@name $($c)*)> for MapShadow<K, V> {}
    )*};
    (@name) => { () };
    (@name $c:literal $($rest:literal)*) => { Ch<$c, map_methods!(@name $($rest)*)> };
}

map_methods! {
    'i' 'n' 's' 'e' 'r' 't';
    'f' 'i' 'n' 'd';
    'e' 'x' 'i' 's' 't' 's';
    'e' 'r' 'a' 's' 'e';
    'v' 'a' 'l' 'i' 'd' '_' 'a' 't';
    'k' 'e' 'y' '_' 'a' 't';
    'v' 'a' 'l' 'u' 'e' '_' 'a' 't';
    'c' 'a' 'p' 'a' 'c' 'i' 't' 'y';
}
