//! The page: index.html, app.js and app.css from `web/static`, compiled into the
//! binary (no files to deploy, no build step).

use std::sync::Arc;

use axum::http::header;
use axum::response::IntoResponse;
use axum::routing::get;
use axum::Router;

use crate::app::App;

const INDEX: &str = include_str!("../static/index.html");
const APP_JS: &str = include_str!("../static/app.js");
const APP_CSS: &str = include_str!("../static/app.css");

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

/// `/`, `/play/{id}` (the page), and the page's script and style sheet (under `/` and
/// under `/static/`).
pub fn routes() -> Router<Arc<App>> {
    Router::new()
        .route("/", get(index))
        .route("/play/{id}", get(index))
        .route("/app.js", get(app_js))
        .route("/app.css", get(app_css))
        .route("/static/app.js", get(app_js))
        .route("/static/app.css", get(app_css))
}
