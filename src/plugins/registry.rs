//! The plugin registry: built-in plugins plus declarative ones, asked in a
//! fixed order (priority, highest first; ties by id).

use super::api::Plugin;

/// An ordered set of plugins.
pub struct Registry {
    plugins: Vec<Box<dyn Plugin>>,
    /// Their ids, shared by the decision of every activity they handle.
    ids: Vec<std::sync::Arc<str>>,
}

impl Registry {
    /// The registry with the given plugins, sorted.
    pub fn new(mut plugins: Vec<Box<dyn Plugin>>) -> Registry {
        plugins.sort_by(|a, b| {
            b.priority()
                .cmp(&a.priority())
                .then_with(|| a.id().cmp(b.id()))
        });
        let ids = plugins.iter().map(|p| p.id().into()).collect();
        Registry { plugins, ids }
    }

    /// The built-in Rust plugins only.
    pub fn builtin() -> Vec<Box<dyn Plugin>> {
        let mut v: Vec<Box<dyn Plugin>> = vec![
            Box::new(super::existing::Existing),
            Box::new(super::lifecycle::Lifecycle),
            Box::new(super::connects_to::ConnectsTo),
            Box::new(super::configure::Configure),
            Box::new(super::delegate::Delegate),
            Box::new(super::delegate::NoOp),
            Box::new(super::workflow::Workflow),
            Box::new(super::fallback::Fallback),
            Box::new(super::selection::Recursive),
            Box::new(super::state::State),
            Box::new(super::testing::Tests),
            Box::new(super::test_policies::TestPolicies),
            Box::new(super::update::Update),
        ];
        for s in super::selection::Selector::all() {
            v.push(Box::new(s));
        }
        v
    }

    /// The built-in plugins plus the embedded declarative ones and those
    /// in `dirs`.
    pub fn standard(
        dirs: &[std::path::PathBuf],
        sources: &mut crate::diagnostics::SourceMap,
    ) -> crate::error::Result<(Registry, crate::diagnostics::Diagnostics)> {
        let (declarative, diags) = super::declarative::load_all(dirs, sources)?;
        let mut plugins = Self::builtin();
        for d in declarative {
            plugins.push(Box::new(d));
        }
        Ok((Registry::new(plugins), diags))
    }

    /// Plugins in the order they are asked.
    pub fn plugins(&self) -> &[Box<dyn Plugin>] {
        &self.plugins
    }

    /// The id of plugin `i` (in the order they are asked), shared.
    pub fn id(&self, i: usize) -> std::sync::Arc<str> {
        self.ids[i].clone()
    }
}
