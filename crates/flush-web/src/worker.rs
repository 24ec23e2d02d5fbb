//! The page's end of the explorer's worker (see `flush_worker`): the worker
//! itself, loaded from `flush-worker.js` (its own module, built by Trunk beside
//! the page's).

pub use flush_worker::{
    now, restore, FromWorker, Job, JobSpec, Lens, LensWire, Running, Search, SearchWire, Tick,
    ToWorker, PAGE_MAX_BYTES,
};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// The worker's script: loads the worker's module (see [`worker_urls`]),
/// keeping the page's messages until it can take them, then runs slices until
/// there is nothing to say. A module that does not load is reported (`Broken`).
const WORKER_JS: &str = r#"
const early = [];
self.onmessage = (e) => early.push(e.data);
let m = null;
try {
  m = await import(__FS_GLUE__);
  await m.default({ module_or_path: __FS_WASM__ });
} catch (e) {
  self.postMessage(JSON.stringify({ Broken: { why: String(e) } }));
  m = null;
  self.close();
}
if (m) {
  self.postMessage('{"Ready":{}}');
  let busy = false;
  const ch = new MessageChannel();
  const go = () => { if (!busy) { busy = true; ch.port2.postMessage(0); } };
  ch.port1.onmessage = () => {
    busy = false;
    const out = m.worker_slice();
    if (out !== undefined && out !== null) { self.postMessage(out); go(); }
  };
  const take = (d) => { m.worker_message(d); go(); };
  self.onmessage = (e) => take(e.data);
  early.forEach(take);
}
"#;

/// The worker module's JS glue and wasm: `flush-worker.js` and
/// `flush-worker_bg.wasm` beside the page's own glue (Trunk's module preload
/// link), which Trunk names by hash while a worker's names stay fixed: that hash
/// goes in the query, so a new build is never served from an old cache.
fn worker_urls(doc: &web_sys::Document) -> Option<(String, String)> {
    let href = doc
        .query_selector("link[rel=modulepreload]")
        .ok()??
        .get_attribute("href")?;
    let page = web_sys::Url::new_with_base(&href, &doc.url().ok()?).ok()?;
    let build = page
        .pathname()
        .rsplit('/')
        .next()
        .and_then(|f| f.strip_suffix(".js"))
        .and_then(|f| f.rsplit_once('-'))
        .map(|(_, hash)| format!("?v={hash}"))
        .unwrap_or_default();
    let url = |file: &str| {
        web_sys::Url::new_with_base(&format!("{file}{build}"), &page.href())
            .ok()
            .map(|u| u.href())
    };
    Some((url("flush-worker.js")?, url("flush-worker_bg.wasm")?))
}

/// The page's end of a worker; dropping it ends the worker.
pub struct WorkerLink {
    worker: web_sys::Worker,
    url: String,
    _on_message: Closure<dyn FnMut(web_sys::MessageEvent)>,
    _on_error: Closure<dyn FnMut(web_sys::Event)>,
}

impl WorkerLink {
    /// A worker running the worker's module, `on_message` getting what it says
    /// (or why it could not be read) and `on_error` called if it fails (to load,
    /// or later). `None` where the page
    /// cannot start one (no module workers, or not served by Trunk).
    pub fn spawn(
        mut on_message: impl FnMut(Result<FromWorker, String>) + 'static,
        on_error: impl FnMut(web_sys::Event) + 'static,
    ) -> Option<WorkerLink> {
        let doc = web_sys::window()?.document()?;
        let (glue, wasm) = worker_urls(&doc)?;
        let js = WORKER_JS
            .replace("__FS_GLUE__", &serde_json::to_string(&glue).ok()?)
            .replace("__FS_WASM__", &serde_json::to_string(&wasm).ok()?);
        let parts = js_sys::Array::of1(&JsValue::from_str(&js));
        let bag = web_sys::BlobPropertyBag::new();
        bag.set_type("text/javascript");
        let blob = web_sys::Blob::new_with_str_sequence_and_options(&parts, &bag).ok()?;
        let url = web_sys::Url::create_object_url_with_blob(&blob).ok()?;
        let opts = web_sys::WorkerOptions::new();
        opts.set_type(web_sys::WorkerType::Module);
        let Ok(worker) = web_sys::Worker::new_with_options(&url, &opts) else {
            let _ = web_sys::Url::revoke_object_url(&url);
            return None;
        };
        let on_message =
            Closure::<dyn FnMut(web_sys::MessageEvent)>::new(move |e: web_sys::MessageEvent| {
                let text = e.data().as_string().unwrap_or_default();
                on_message(
                    FromWorker::read(&text)
                        .map_err(|e| format!("a message from the worker could not be read: {e}")),
                )
            });
        let on_error = Closure::<dyn FnMut(web_sys::Event)>::new(on_error);
        worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
        Some(WorkerLink {
            worker,
            url,
            _on_message: on_message,
            _on_error: on_error,
        })
    }

    /// Ends the worker now (it failed); the link is dropped later.
    pub fn end(&self) {
        self.worker.terminate();
    }

    pub fn send(&self, m: &ToWorker) -> bool {
        serde_json::to_string(m)
            .ok()
            .is_some_and(|s| self.worker.post_message(&JsValue::from_str(&s)).is_ok())
    }
}

impl Drop for WorkerLink {
    fn drop(&mut self) {
        self.worker.set_onmessage(None);
        self.worker.set_onerror(None);
        self.worker.terminate();
        let _ = web_sys::Url::revoke_object_url(&self.url);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::{build, scenario_of, Mode, Source, ViewSpec};
    use flush_core::builtin;
    use flush_core::explore::Options;
    use flush_core::AnyScenario;
    use std::rc::Rc;

    /// Every scenario the page can hand the worker: each built-in at each version,
    /// and under each combination of its knobs (the policy matrix's rows).
    fn page_searches() -> Vec<Search> {
        let mut out = Vec::new();
        for name in builtin::names() {
            let source = Source::Builtin(name.to_owned());
            let spec = ViewSpec {
                source: source.clone(),
                version: None,
                compare: None,
                explore: None,
                lens: false,
                matrix: false,
                knobs: Vec::new(),
                tour: None,
                seed: None,
                mode: Mode::Seeded,
                schedule: None,
                step: 0,
            };
            let base = build(&spec).unwrap().0.scenario();
            let mut scs = vec![base.clone()];
            scs.extend(base.at_every_version());
            scs.extend(base.variants().into_iter().map(|(_, v)| v));
            for sc in scs {
                out.push(Search {
                    source: source.clone(),
                    sc,
                    o: Options::first(40, 1000),
                });
            }
        }
        out
    }

    /// `sc` with every knob set to what it runs with: a knob left at its version's
    /// preset crosses as set to that preset, which the model resolves alike
    /// (sync2024/knobs.rs: `p.request.unwrap_or(k.request)`).
    fn explicit(mut sc: AnyScenario) -> AnyScenario {
        for k in sc.knobs() {
            sc.set_knob(k.key, k.current).unwrap();
        }
        sc
    }

    /// The worker rebuilds each scenario equal to the page's, from its wire form.
    #[test]
    fn a_search_crosses_to_the_worker_unchanged() {
        let all = page_searches();
        assert!(all.len() > 20, "{} searches", all.len());
        let mut knobbed = 0;
        for s in all {
            let wire = SearchWire::of(&s);
            knobbed += usize::from(!wire.knobs.is_empty());
            // The race lens crosses with the same search and a schedule.
            let lens = LensWire {
                search: wire.clone(),
                schedule: vec![[0, 0], [2, 1]],
            };
            let m = ToWorker::Start {
                id: 7,
                searches: vec![wire],
                cut: None,
                lens: Some(Box::new(lens.clone())),
            };
            let back = ToWorker::read(&serde_json::to_string(&m).unwrap()).unwrap();
            let ToWorker::Start {
                id,
                mut searches,
                lens: Some(lens_back),
                ..
            } = back
            else {
                panic!("not a start with a lens")
            };
            assert_eq!(id, 7);
            assert_eq!(*lens_back, lens);
            let got = searches.remove(0).search().unwrap();
            assert_eq!(
                explicit(got.sc),
                explicit(s.sc.clone()),
                "{}",
                s.sc.header().name
            );
            assert_eq!(got.o, s.o);
            assert_eq!(got.source, s.source);
        }
        assert!(knobbed > 0, "no scenario with knobs crossed");
    }

    /// An edited (inline) scenario crosses too; a search the worker cannot
    /// rebuild says why.
    #[test]
    fn an_inline_scenario_crosses_and_a_bad_one_says_why() {
        let (name, text) = builtin::FILES[0];
        let source = Source::Inline {
            file: format!("{name}.json"),
            text: Rc::from(text),
        };
        let sc = scenario_of(&source).unwrap();
        let s = Search {
            source,
            sc: sc.clone(),
            o: Options::first(10, 10),
        };
        assert_eq!(
            explicit(SearchWire::of(&s).search().unwrap().sc),
            explicit(sc)
        );
        let mut bad = SearchWire::of(&s);
        bad.version = Some("nope".into());
        let why = match bad.search() {
            Err(why) => why,
            Ok(_) => panic!("a made-up version was taken"),
        };
        assert!(why.contains("nope"), "{why}");
    }
}
