//! Index helpers of the layout: hash maps and sets for small integer keys
//! (indices, coordinates), which the layout looks up once per flow or
//! shape, where SipHash costs more than the rest of the work; and
//! [`NONE`], for vectors that hold an index or nothing.

use std::collections::{HashMap, HashSet};
use std::hash::BuildHasherDefault;

/// "None" in the index vectors of the layout, which hold an index or
/// nothing without the size of an `Option`.
pub(crate) const NONE: usize = usize::MAX;

/// A hasher for small integer keys.
#[derive(Default, Clone, Copy)]
pub(crate) struct IntHasher(u64);

impl std::hash::Hasher for IntHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(u64::from(b));
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0.rotate_left(5) ^ n).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
    fn write_usize(&mut self, n: usize) {
        self.write_u64(n as u64);
    }
    fn write_i64(&mut self, n: i64) {
        self.write_u64(n as u64);
    }
}

/// A map with [`IntHasher`].
pub(crate) type IntMap<K, V> = HashMap<K, V, BuildHasherDefault<IntHasher>>;
/// A set with [`IntHasher`].
pub(crate) type IntSet<K> = HashSet<K, BuildHasherDefault<IntHasher>>;
