//! The flush-2021 model as front ends show it: the JSON summary, the stage (lanes
//! per queue, the drop panel, the Replica) and the figures. Reads the world and
//! the facts; the model never calls in here.

use serde::Serialize;

use super::{Ev, NamedPack, Pack, Scenario, World};
use crate::engine::Run;
use crate::explore::{end_word, Observe};
use crate::view::Present;

/// A Replica segment at the end of a run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ReplicaJson {
    pub segment: i64,
    pub state: &'static str,
    pub rows: i64,
    pub checkpoint: Option<String>,
}

/// `notified`, `drop_packs` and `replica` of the `--json` report.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Summary {
    /// Packs in notify order (SaveBinlogPaths succeeded), segment after any remap.
    pub notified: Vec<NamedPack>,
    /// The packs given to flushAndDrop, or null.
    pub drop_packs: Option<Vec<NamedPack>>,
    pub replica: Vec<ReplicaJson>,
}

/// Every pack notified in the recorded run, with the step that notified it: the
/// one scan of the facts that the report, the page and the explorer share.
pub fn notified(run: &Run<Scenario>) -> impl Iterator<Item = (u32, &super::Pack)> {
    run.records().iter().flat_map(move |rec| {
        run.events_of(rec).iter().filter_map(move |e| match e {
            Ev::Notified { pack, .. } => Some((rec.step, pack)),
            _ => None,
        })
    })
}

impl Present for Scenario {
    type Summary = Summary;

    fn summary(&self, run: &Run<Scenario>) -> Summary {
        let w = run.head();
        Summary {
            notified: notified(run).map(|(_, p)| NamedPack::of(self, p)).collect(),
            drop_packs: w
                .drop
                .flush_and_drop
                .as_ref()
                .map(|ps| ps.iter().map(|p| NamedPack::of(self, p)).collect()),
            replica: w
                .replica
                .iter()
                .map(|s| ReplicaJson {
                    segment: s.segment,
                    state: s.state.as_str(),
                    rows: s.rows,
                    checkpoint: s.checkpoint.map(|p| self.pos_name(p).to_owned()),
                })
                .collect(),
        }
    }
}

/// `2/a+f`: a pack as the conformance harness prints it (`nil` for a
/// position-less drop-mode delete pack; `+f`, `+d`, `+e` for flushed, dropped, err).
fn pack_word(sc: &Scenario, p: &Pack) -> String {
    let mut s = format!("{}/{}", p.segment, p.pos.map_or("nil", |x| sc.pos_name(x)));
    for (on, tag) in [(p.flushed, "+f"), (p.dropped, "+d"), (p.err, "+e")] {
        if on {
            s.push_str(tag);
        }
    }
    s
}

/// What datacoord sees of a flush-2021 run: the packs SaveBinlogPaths receives in
/// order (`N=`), the packs flushAndDrop gets (`D=`, `-` if never called), and how
/// the run ended (`E=`).
impl Observe for Scenario {
    fn observed(&self, f: &Ev) -> Option<String> {
        match f {
            Ev::Notified { pack, .. } => Some(pack_word(self, pack)),
            _ => None,
        }
    }
    fn end_observed(&self, w: &World) -> String {
        let d = match &w.drop.flush_and_drop {
            Some(ps) => ps.iter().map(|p| pack_word(self, p)).collect::<Vec<_>>().join(" "),
            None => "-".to_owned(),
        };
        format!("D={d} | E={}", end_word(self, w))
    }
}
