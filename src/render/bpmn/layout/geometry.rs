//! Geometry of a diagram: shape bounds in integer coordinates, and the
//! 32 bits a laid-out plane keeps them in.
//!
//! In: coordinates computed in 64 bits. Out: [`Bounds`], and coordinates
//! narrowed to 32 bits, or the error of a diagram too large for them.

/// A shape's bounds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Bounds {
    /// Left.
    pub x: i64,
    /// Top.
    pub y: i64,
    /// Width.
    pub w: i64,
    /// Height.
    pub h: i64,
}

impl Bounds {
    /// Right edge.
    pub(crate) fn right(&self) -> i64 {
        self.x + self.w
    }
    /// Bottom edge.
    pub(crate) fn bottom(&self) -> i64 {
        self.y + self.h
    }
    /// Horizontal centre.
    pub(crate) fn cx(&self) -> i64 {
        self.x + self.w / 2
    }
    /// Vertical centre.
    pub(crate) fn cy(&self) -> i64 {
        self.y + self.h / 2
    }
}

/// A diagram too large for the 32-bit coordinates it is kept in.
pub(crate) fn beyond_32_bits() -> crate::error::Error {
    crate::error::Error::Internal("BPMN layout: a diagram coordinate beyond 32 bits".into())
}

/// `v` in 32 bits; `wide` is set if it does not fit.
pub(crate) fn narrow(v: i64, wide: &mut bool) -> i32 {
    i32::try_from(v).unwrap_or_else(|_| {
        *wide = true;
        0
    })
}
