//! Permutations of a set's elements, and moving rows by them.
//!
//! A leaf module: it imports nothing from the rest of the crate, so the model
//! ([`crate::domain`], which keeps data declared after `op_renumber` in the
//! current order), the renumbering ([`crate::renumber`], which computes and
//! applies the permutations) and the distributed layer can all use it
//! without depending on one another.
//!
//! # Convention
//! An *order* is `order[new] = old`: position `new` of the permuted sequence
//! holds the element that was at position `old`. Its [`inverse`] is
//! `new_of_old[old] = new`. An order may cover only a prefix of a set (its
//! core): rows past `order.len()` do not move.

/// The permutations of one renumbering of a domain's sets.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Renumbering {
    /// Per set (by id): `order[new] = old` over the set's first
    /// `order.len()` elements (its core), or `None`: the set keeps its numbering.
    pub orders: Vec<Option<Vec<u32>>>,
}

impl Renumbering {
    /// Does it move anything?
    pub fn is_identity(&self) -> bool {
        self.orders
            .iter()
            .flatten()
            .all(|o| o.iter().enumerate().all(|(new, &old)| new == old as usize))
    }
}

/// `new_of_old[old] = new` for `order[new] = old`.
pub fn inverse(order: &[u32]) -> Vec<u32> {
    let mut inv = vec![0u32; order.len()];
    for (new, &old) in order.iter().enumerate() {
        inv[old as usize] = new as u32;
    }
    inv
}

/// Rows `0..order.len()` of `data` (rows of `eb` bytes): row `new` takes
/// the old row `order[new]`; the other rows stay.
pub fn permute_rows(data: &mut [u8], eb: usize, order: &[u32]) {
    let n = order.len();
    if n == 0 || eb == 0 {
        return;
    }
    let old = data[..n * eb].to_vec();
    for (new, &o) in order.iter().enumerate() {
        let o = o as usize;
        data[new * eb..(new + 1) * eb].copy_from_slice(&old[o * eb..(o + 1) * eb]);
    }
}

/// Map entries pointing into a permuted set, renamed: an entry `v` inside
/// `new_of_old` becomes `new_of_old[v]`; negative entries and entries past
/// the permuted prefix stay.
pub fn rename_entries(values: &mut [i32], new_of_old: &[u32]) {
    for v in values {
        if *v >= 0 && (*v as usize) < new_of_old.len() {
            *v = new_of_old[*v as usize] as i32;
        }
    }
}

/// The bytes of an `i32` slice (to move a map's rows with [`permute_rows`]).
pub fn i32_bytes(v: &mut [i32]) -> &mut [u8] {
    let len = std::mem::size_of_val(v);
    // SAFETY: i32 has no padding and any byte pattern is a valid i32; the
    // byte slice covers exactly the same memory and borrows `v` mutably.
    unsafe { std::slice::from_raw_parts_mut(v.as_mut_ptr() as *mut u8, len) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inverse_undoes_an_order() {
        let order = [2u32, 0, 3, 1];
        let inv = inverse(&order);
        assert_eq!(inv, [1, 3, 0, 2]);
        for (new, &old) in order.iter().enumerate() {
            assert_eq!(inv[old as usize] as usize, new);
        }
    }

    #[test]
    fn rows_of_a_prefix_move_and_the_rest_stay() {
        let mut v = [10, 11, 20, 21, 30, 31, 40, 41];
        permute_rows(i32_bytes(&mut v), 8, &[2, 0, 1]);
        assert_eq!(v, [30, 31, 10, 11, 20, 21, 40, 41]);
        permute_rows(i32_bytes(&mut v), 0, &[1, 0]);
        permute_rows(i32_bytes(&mut v), 8, &[]);
        assert_eq!(v, [30, 31, 10, 11, 20, 21, 40, 41]);
    }

    #[test]
    fn entries_outside_the_permuted_prefix_keep_their_value() {
        let mut v = [0, 1, 2, -1, 5];
        rename_entries(&mut v, &[2, 0, 1]);
        assert_eq!(v, [2, 0, 1, -1, 5]);
        let identity = Renumbering {
            orders: vec![None, Some(vec![0, 1, 2])],
        };
        assert!(identity.is_identity());
        let moved = Renumbering {
            orders: vec![Some(vec![1, 0])],
        };
        assert!(!moved.is_identity());
    }
}
