//! The glossary: Milvus words in the page's prose explained on hover and focus
//! (`glossed`), and listed whole in a panel whose entries those explanations
//! point at (`aria-describedby`), so a screen reader hears the same sentence.

use flush_core::glossary::TERMS;
use yew::prelude::*;

/// Whether `b` can border a word (letters, digits and `_` cannot).
fn boundary(b: Option<u8>) -> bool {
    b.is_none_or(|b| !(b.is_ascii_alphanumeric() || b == b'_'))
}

/// A glossary term found in a text: its byte range and its entry.
pub type Mark = (
    usize,
    usize,
    &'static (&'static str, &'static str, &'static str),
);

/// The first whole-word occurrence (any case) of each glossary entry in `text`,
/// longest terms first, never overlapping, in text order.
pub fn marks(text: &str) -> Vec<Mark> {
    // Case is ignored ("Drop mode" is drop mode); ASCII lowering keeps every index.
    let lower = text.to_ascii_lowercase();
    let bytes = lower.as_bytes();
    let mut terms: Vec<_> = TERMS.iter().collect();
    // The core's one sort: a standard-library sort per type is 3 to 5 KB of wasm.
    flush_core::order::sort_by_key(&mut terms, |t| std::cmp::Reverse(t.0.len()));
    let mut hits: Vec<Mark> = Vec::new();
    for t in terms {
        if hits.iter().any(|h| h.2 .1 == t.1) {
            continue;
        }
        let found = lower
            .match_indices(&t.0.to_ascii_lowercase())
            .find(|&(i, _)| {
                let end = i + t.0.len();
                boundary(i.checked_sub(1).map(|j| bytes[j]))
                    && boundary(bytes.get(end).copied())
                    && !hits.iter().any(|h| i < h.1 && h.0 < end)
            });
        if let Some((i, _)) = found {
            hits.push((i, i + t.0.len(), t));
        }
    }
    flush_core::order::sort_by_key(&mut hits, |h| h.0);
    hits
}

/// `text` with each of its [`marks`] a focusable span whose sentence shows on
/// hover and focus (CSS, `data-tip`) and is its accessible description.
pub fn glossed(text: &str) -> Html {
    let hits = marks(text);
    let mut at = 0;
    let mut out = Vec::with_capacity(hits.len() * 2 + 1);
    for (start, end, (_, id, sentence)) in hits {
        out.push(html! { {&text[at..start]} });
        out.push(html! {
            <span class="term" tabindex="0" aria-describedby={format!("gloss-{id}")} data-tip={*sentence}>{&text[start..end]}</span>
        });
        at = end;
    }
    out.push(html! { {&text[at..]} });
    out.into_iter().collect()
}

/// Every term, one sentence each; the targets of the marked words' descriptions.
#[function_component(Glossary)]
pub fn glossary() -> Html {
    let mut seen = Vec::new();
    html! {
        <details class="panel glossary" id="glossary">
            <summary><h3>{"Glossary"}</h3></summary>
            <p class="muted">{"The Milvus words on this page. In the text, a dotted underline marks one: hover or focus it for its sentence (Escape hides it)."}</p>
            <dl>
                {for TERMS.iter().filter(|t| { let new = !seen.contains(&t.1); seen.push(t.1); new }).map(|(term, id, sentence)| html! {
                    <>
                        <dt id={format!("gloss-{id}-term")}>{*term}</dt>
                        <dd id={format!("gloss-{id}")}>{*sentence}</dd>
                    </>
                })}
            </dl>
        </details>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(text: &str) -> Vec<(&str, &'static str)> {
        marks(text)
            .into_iter()
            .map(|(a, b, t)| (&text[a..b], t.1))
            .collect()
    }

    #[test]
    fn each_term_once_whole_words_any_case_longest_first() {
        assert_eq!(
            words("Drop mode: getFlushTaskRunner, then flushTaskRunner; the tail chain and tailCh; postInjection again postInjection"),
            [
                ("Drop mode", "drop-mode"),
                ("getFlushTaskRunner", "get-flush-task-runner"),
                ("flushTaskRunner", "flush-task-runner"),
                ("tail chain", "tail"),
                ("postInjection", "post-injection"),
            ]
        );
        assert!(
            words("retail chains, L0s and preL0").is_empty(),
            "{:?}",
            words("retail chains, L0s and preL0")
        );
        // Multi-byte text before a term: the byte ranges still cut at characters.
        assert_eq!(words("é — the metacache"), [("metacache", "metacache")]);
    }

    #[test]
    fn every_entry_has_a_sentence_and_ids_are_shared_only_by_synonyms() {
        for (term, id, sentence) in TERMS {
            assert!(sentence.ends_with('.') && sentence.len() > 15, "{term}");
            let same: Vec<_> = TERMS.iter().filter(|t| t.1 == *id).collect();
            assert!(
                same.iter().all(|t| t.2 == *sentence),
                "{id}: one sentence per id"
            );
        }
    }
}
