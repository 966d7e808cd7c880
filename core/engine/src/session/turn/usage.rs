//! What a model call cost: the session's totals per model, and the one-time notice for a
//! model dcl has no price for. Used by sampling, compaction and the result alike.

use dcl_protocol::{ModelUsage, Usage};

use super::TurnContext;
use crate::session::models;

/// Adds one response's usage to the session's totals, priced by the model's table entry.
pub(super) fn record_usage(ctx: &TurnContext, model: &str, usage: &Usage) {
    let services = &ctx.core.services;
    if let Some(notice) = services.clients.unpriced_notice(model) {
        ctx.emitter.warning(notice);
    }
    let cost = models::price(model).map_or(0.0, |p| p.cost_usd(usage));
    ctx.core.state.with(|s| {
        let totals = &mut s.totals;
        totals.cost_usd += cost;
        totals
            .model_entry(model, || {
                ModelUsage::new(
                    models::context_window(model),
                    models::max_output_tokens(model),
                )
            })
            .add(usage, cost);
    });
}
