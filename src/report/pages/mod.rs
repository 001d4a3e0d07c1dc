//! The pages of a run: `report.md` and `compare.md` ([`markdown`]), `report.html` ([`html`]),
//! the review card `card.png` ([`card`]), and the results library's `index.html`
//! ([`library`]). Pages take chart specs and plain data; they draw charts through
//! [`crate::report::draw`].

pub mod card;
pub mod html;
mod html_assets;
pub mod library;
pub mod markdown;
