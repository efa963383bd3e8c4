//! The page: index.html, app.js, app.css and the CJK font (fonts.css, fonts/) from
//! `web/static`, compiled into the binary (no files to deploy, no build step).

use std::sync::Arc;

use axum::http::header;
use axum::response::IntoResponse;
use axum::routing::get;
use axum::Router;

use crate::app::App;

const INDEX: &str = include_str!("../static/index.html");
const APP_JS: &str = include_str!("../static/app.js");
const APP_CSS: &str = include_str!("../static/app.css");
const FONTS_CSS: &str = include_str!("../static/fonts.css");
/// The page's CJK font, Regular and Bold: a subset of Noto Sans CJK SC made by
/// `scripts/build-web-font` (docs/web.md, "The font").
const FONT_REGULAR: &[u8] = include_bytes!("../static/fonts/junqi-cjk.woff2");
const FONT_BOLD: &[u8] = include_bytes!("../static/fonts/junqi-cjk-bold.woff2");
const FONT_LICENSE: &str = include_str!("../static/fonts/LICENSE-OFL.txt");

/// Tokens travel in page URLs: no page may send them on in a `Referer`.
const NO_REFERRER: (header::HeaderName, &str) = (header::REFERRER_POLICY, "no-referrer");

async fn index() -> impl IntoResponse {
    (
        [
            (header::CONTENT_TYPE, "text/html; charset=utf-8"),
            NO_REFERRER,
            (header::CACHE_CONTROL, "no-store"),
        ],
        INDEX,
    )
}

async fn app_js() -> impl IntoResponse {
    (
        [
            (header::CONTENT_TYPE, "text/javascript; charset=utf-8"),
            NO_REFERRER,
        ],
        APP_JS,
    )
}

async fn app_css() -> impl IntoResponse {
    (
        [
            (header::CONTENT_TYPE, "text/css; charset=utf-8"),
            NO_REFERRER,
        ],
        APP_CSS,
    )
}

/// The font's style sheet names the fonts with their hash (`?v=`), so it must be fresh
/// (revalidated) for a rebuilt font to reach the page.
async fn fonts_css() -> impl IntoResponse {
    (
        [
            (header::CONTENT_TYPE, "text/css; charset=utf-8"),
            NO_REFERRER,
            (header::CACHE_CONTROL, "no-cache"),
        ],
        FONTS_CSS,
    )
}

/// A font: a year in any cache, since fonts.css asks for it under its hash.
fn font(bytes: &'static [u8]) -> impl IntoResponse {
    (
        [
            (header::CONTENT_TYPE, "font/woff2"),
            (header::CACHE_CONTROL, "public, max-age=31536000, immutable"),
        ],
        bytes,
    )
}

async fn font_regular() -> impl IntoResponse {
    font(FONT_REGULAR)
}

async fn font_bold() -> impl IntoResponse {
    font(FONT_BOLD)
}

async fn font_license() -> impl IntoResponse {
    (
        [
            (header::CONTENT_TYPE, "text/plain; charset=utf-8"),
            (header::CACHE_CONTROL, "public, max-age=86400"),
        ],
        FONT_LICENSE,
    )
}

/// `/`, `/play/{id}` (the page), and the page's script, style sheets and fonts (under
/// `/` and under `/static/`).
pub fn routes() -> Router<Arc<App>> {
    let mut router = Router::new()
        .route("/", get(index))
        .route("/play/{id}", get(index));
    for prefix in ["", "/static"] {
        router = router
            .route(&format!("{prefix}/app.js"), get(app_js))
            .route(&format!("{prefix}/app.css"), get(app_css))
            .route(&format!("{prefix}/fonts.css"), get(fonts_css))
            .route(
                &format!("{prefix}/fonts/junqi-cjk.woff2"),
                get(font_regular),
            )
            .route(
                &format!("{prefix}/fonts/junqi-cjk-bold.woff2"),
                get(font_bold),
            )
            .route(
                &format!("{prefix}/fonts/LICENSE-OFL.txt"),
                get(font_license),
            );
    }
    router
}
