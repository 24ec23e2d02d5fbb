//! The sync-2024 model as front ends show it: the JSON summary, the stage (write
//! buffer, sync tasks, SyncSegments, the metacache and datacoord's meta) and the
//! figures. Reads the world and the facts; the model never calls in here.

use serde::Serialize;

use super::{DcSegment, DnSegment, Scenario};
use crate::engine::Run;
use crate::explore::Observe;
use crate::view::Present;

/// `notified`, `drop_packs`, `metacache` and `datacoord` of the `--json` report.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Summary {
    /// DESIGN.md's report names these two for every run; sync-2024 has no flush
    /// packs, so they are `[]` and `null`.
    pub notified: [(); 0],
    pub drop_packs: Option<()>,
    /// The metacache at the end.
    pub metacache: Vec<DnSegment>,
    /// Datacoord's segments at the end.
    pub datacoord: Vec<DcSegment>,
}

impl Present for Scenario {
    type Summary = Summary;

    fn summary(&self, run: &Run<Scenario>) -> Summary {
        let w = run.head();
        Summary {
            notified: [],
            drop_packs: None,
            metacache: w
                .metacache
                .segments()
                .iter()
                .map(|m| DnSegment {
                    segment: m.segment,
                    partition: m.partition,
                    state: m.state,
                    level: m.level,
                    rows: m.num_rows(),
                })
                .collect(),
            datacoord: w.datacoord.clone(),
        }
    }
}

/// The conformance harness covers flush-2021 only: a sync-2024 outcome is how the
/// run ended.
impl Observe for Scenario {}
