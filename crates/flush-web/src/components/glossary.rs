//! The glossary: Milvus words in the page's prose explained on hover and focus
//! (`glossed`), and listed whole in a panel whose entries those explanations
//! point at (`aria-describedby`), so a screen reader hears the same sentence.

use flush_core::glossary::TERMS;
use yew::prelude::*;

/// Whether `b` can border a word (letters, digits and `_` cannot).
fn boundary(b: Option<u8>) -> bool {
    b.is_none_or(|b| !(b.is_ascii_alphanumeric() || b == b'_'))
}

/// `text` with the first whole-word occurrence of each glossary term marked: a
/// focusable span whose sentence shows on hover and focus (CSS, `data-tip`) and
/// is its accessible description.
pub fn glossed(text: &str) -> Html {
    let bytes = text.as_bytes();
    let mut terms: Vec<_> = TERMS.iter().collect();
    terms.sort_by_key(|t| std::cmp::Reverse(t.0.len()));
    let mut hits: Vec<(usize, usize, &(&str, &str, &str))> = Vec::new();
    for t in terms {
        if hits.iter().any(|h| h.2 .1 == t.1) {
            continue;
        }
        let found = text.match_indices(t.0).find(|&(i, _)| {
            let end = i + t.0.len();
            boundary(i.checked_sub(1).map(|j| bytes[j]))
                && boundary(bytes.get(end).copied())
                && !hits.iter().any(|h| i < h.1 && h.0 < end)
        });
        if let Some((i, _)) = found {
            hits.push((i, i + t.0.len(), t));
        }
    }
    hits.sort_by_key(|h| h.0);
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
