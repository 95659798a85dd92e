//! Completing and rendering the plans of one run, one plan at a time:
//! each is completed (and its variables named) on this thread while the
//! one before is rendered in every language on others, then dropped, so
//! that memory holds two plans' steps however many plans there are. Plan
//! archives are spooled beside the output. A plan that cannot be
//! completed stops the rendering, but the others are still completed, so
//! that every error is reported.
//!
//! The next plan is completed once the one before is rendered in every
//! language but one: rendering a large plan starts with the whole process
//! laid out (the peak of its memory), and the next plan's steps need not be
//! held beside that; the last language (the BPMN process, the longest)
//! still leaves time to complete it.
//!
//! In: the abstract plans (each with its own topology when it is not the
//! input's: a transformation's), the plugins, the languages. Out: the
//! rendered plans by language, then in the order given; their activity
//! counts; the decision logs when asked; the completion diagnostics.

use std::path::Path;
use std::sync::Arc;
use std::sync::mpsc::{channel, sync_channel};

use crate::Options;
use crate::diagnostics::Diagnostics;
use crate::error::{Error, Result};
use crate::model::Topology;
use crate::plan::AbstractPlan;
use crate::plugins::Registry;
use crate::render::{Language, NamedPlan, RenderedPlan};

/// An abstract plan, with the topology it is derived on when that is not
/// the input's.
pub(super) type Job = (AbstractPlan, Option<Arc<Topology>>);

/// What [`complete_and_render`] gives back.
pub(super) struct Streamed {
    pub(super) rendered: Vec<RenderedPlan>,
    pub(super) activities: Vec<usize>,
    pub(super) explained: Vec<String>,
    pub(super) diagnostics: Diagnostics,
}

/// Complete every job and render it in every language (spooled beside
/// `spool` when there is one). `meanwhile` runs on this thread once the
/// last plan is completed, while the renderer is still at work: a core
/// would be idle otherwise.
pub(super) fn complete_and_render<T>(
    jobs: Vec<Job>,
    topology: &Topology,
    registry: &Registry,
    options: &Options,
    languages: &[Language],
    spool: Option<&Path>,
    meanwhile: impl FnOnce() -> T,
) -> Result<(Streamed, T)> {
    let templates = super::render::templates()?;
    let explain = !options.complete.brief;
    let mut diagnostics = Diagnostics::new();
    let (rendered, done_meanwhile) = std::thread::scope(|scope| {
        let (send, receive) = sync_channel::<NamedPlan>(0);
        // The renderer owns the sender: if it stops, waiting for it ends.
        let (go, wait) = channel::<()>();
        let renderer = scope.spawn(move || -> Result<(Vec<_>, Vec<usize>, Vec<String>)> {
            let (mut rendered, mut activities, mut explained) =
                (Vec::new(), Vec::new(), Vec::new());
            let go = std::sync::Mutex::new(go);
            let go_when = |packed: usize| {
                if packed + 1 == languages.len()
                    && let Ok(go) = go.lock()
                {
                    let _ = go.send(());
                }
            };
            for named in receive {
                let plan = &named.plan;
                if languages.len() == 1 {
                    go_when(0);
                }
                for r in crate::render::pack_all(
                    &named,
                    languages,
                    topology,
                    templates,
                    options.layout,
                    spool,
                    &go_when,
                )? {
                    activities.push(plan.plan.activities.len());
                    rendered.push(r);
                }
                if explain {
                    explained.push(super::explain(plan, plan.topology(topology)));
                }
            }
            Ok((rendered, activities, explained))
        });
        // Whether a plan was handed to the renderer whose go has not come.
        let mut pending = false;
        for (abstract_plan, own) in jobs {
            if pending && wait.recv().is_err() {
                break; // the renderer failed; its error is reported below
            }
            let on = own.as_deref().unwrap_or(topology);
            let (mut plan, d) =
                crate::plugins::complete(on, abstract_plan, registry, &options.complete);
            if let (Some(plan), Some(own)) = (&mut plan, &own) {
                plan.own_topology = Some(own.clone());
            }
            diagnostics.extend(d);
            pending = false;
            if let Some(plan) = plan.filter(|_| !diagnostics.has_errors()) {
                // Named here, while the plan before is still rendered.
                if send.send(NamedPlan::new(plan, topology)).is_err() {
                    break;
                }
                pending = true;
            }
        }
        drop(send);
        let done_meanwhile = meanwhile();
        let rendered = renderer
            .join()
            .unwrap_or_else(|_| Err(Error::Internal("the renderer panicked".into())));
        (rendered, done_meanwhile)
    });
    let (rendered, activities, explained) = rendered?;
    if diagnostics.has_errors() {
        return Err(Error::Input(diagnostics));
    }
    // Plans in the order the library gives them: by language, then kind.
    let mut order: Vec<usize> = (0..rendered.len()).collect();
    order.sort_by_key(|&i| (rendered[i].language, i));
    let mut slots: Vec<Option<_>> = rendered.into_iter().map(Some).collect();
    let rendered: Vec<_> = order.iter().filter_map(|&i| slots[i].take()).collect();
    let activities: Vec<usize> = order.iter().map(|&i| activities[i]).collect();
    Ok((
        Streamed {
            rendered,
            activities,
            explained,
            diagnostics,
        },
        done_meanwhile,
    ))
}
