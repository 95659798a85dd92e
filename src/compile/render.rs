//! One completed plan rendered in one language, its files kept in memory:
//! what [`super::compile`] does per plan and language, for callers that
//! hold the plan themselves (tests, benchmarks, tools that inspect a plan).
//!
//! In: the plan (from [`crate::derive`]), its topology, the language.
//! Out: the rendered plan, its files in archive order.

use std::sync::OnceLock;

use crate::error::Result;
use crate::model::Topology;
use crate::plugins::ConcretePlan;
use crate::render::templates::Templates;
use crate::render::{Language, Layout, RenderedPlan};

/// Render `plan` in `language`, laid out as `compile` lays plans out by
/// default ([`Layout::Compact`]).
pub fn render(
    plan: &ConcretePlan,
    topology: &Topology,
    language: Language,
) -> Result<RenderedPlan> {
    render_laid_out(plan, topology, language, Layout::default())
}

/// Render `plan` in `language`, laid out as `layout` says.
pub fn render_laid_out(
    plan: &ConcretePlan,
    topology: &Topology,
    language: Language,
    layout: Layout,
) -> Result<RenderedPlan> {
    crate::render::render(language, plan, topology, templates()?, layout)
}

/// The embedded templates, parsed once per process (every compile,
/// export and render of the process uses them).
pub(super) fn templates() -> Result<&'static Templates> {
    static TEMPLATES: OnceLock<Templates> = OnceLock::new();
    if let Some(t) = TEMPLATES.get() {
        return Ok(t);
    }
    let parsed = Templates::embedded()?;
    Ok(TEMPLATES.get_or_init(|| parsed))
}
