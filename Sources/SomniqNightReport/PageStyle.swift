/// The pages' shared look, inline in every page (no file, font or script is fetched from anywhere).
///
/// Tier colours are the Okabe–Ito palette, told apart by readers with any common colour-vision deficiency; every
/// tier also has its own shape (critical ▲, high ◆, medium ●, low ■) and is named in text wherever it appears.
enum PageStyle {
    static let tierGlyph = ["critical": "▲", "high": "◆", "medium": "●", "low": "■"]
    /// The line by which a later run knows a page as one this tool wrote (and so may write it again).
    static let generatorMeta = #"<meta name="generator" content="somniq-analyze report">"#

    /// `<head>` of a page: its title, the inline style, and a content policy that forbids every fetch but the page's
    /// own audio clips.
    static func head(title: String) -> String {
        """
        <!DOCTYPE html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:; media-src 'self' data: file:">
        \(generatorMeta)
        <title>\(esc(title))</title>
        <style>\(css)</style>
        </head>

        """
    }

    static let css = """
        :root{--ink:#1b1f24;--muted:#59636e;--line:#d5dbe1;--panel:#f6f8fa;--critical:#D55E00;--high:#E69F00;--medium:#0072B2;\
        --low:#009E73;--env:#7a8794;--snore:#CC79A7}
        *{box-sizing:border-box}
        body{margin:0 auto;max-width:1100px;padding:12px 16px 40px;font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,\
        "Helvetica Neue",Arial,sans-serif;color:var(--ink);background:#fff}
        h1{font-size:1.5em;margin:.3em 0 .1em}h2{font-size:1.15em;margin:1.4em 0 .4em;border-bottom:1px solid var(--line);\
        padding-bottom:.2em}
        .meta{color:var(--muted);margin:0}
        .warnings{border-left:4px solid var(--critical);background:#fdf1e8;padding:.4em .8em;margin:.8em 0}
        .warnings p{margin:.3em 0}
        .cards{display:grid;grid-template-columns:repeat(auto-fill,minmax(150px,1fr));gap:8px}
        .card{background:var(--panel);border:1px solid var(--line);border-radius:6px;padding:.5em .7em}
        .card b{display:block;font-size:1.35em}
        .card span{color:var(--muted);font-size:.88em}
        .scroll{overflow-x:auto;-webkit-overflow-scrolling:touch}
        table{border-collapse:collapse;font-variant-numeric:tabular-nums;margin:.3em 0}
        th,td{padding:.25em .6em;border-bottom:1px solid var(--line);text-align:left;white-space:nowrap}
        td.n,th.n{text-align:right}
        .tier{font-weight:600}
        .t-critical{color:var(--critical);fill:var(--critical)}.t-high{color:#9a6700;fill:var(--high)}\
        .t-medium{color:var(--medium);fill:var(--medium)}.t-low{color:var(--low);fill:var(--low)}
        figure{margin:0}
        .timeline{min-width:800px;width:100%;height:auto;display:block}
        .timeline text{font-size:12.5px;fill:var(--ink)}
        .timeline .axis{fill:var(--muted);font-size:11px}
        .timeline .grid{stroke:var(--line);stroke-width:1}
        .timeline .lane{fill:var(--panel)}
        .timeline .env{fill:var(--env);opacity:.75}
        .timeline .ep{stroke:#1b1f24;stroke-width:.6;opacity:.9}
        .timeline .bout{fill:var(--snore);opacity:.18}
        .timeline .sn{stroke:#5e2449;stroke-width:1}
        .timeline .pause{fill:url(#hatch);stroke:var(--critical);stroke-width:.8}
        .timeline .al{stroke:#1b1f24;stroke-width:.5}
        .legend{display:flex;flex-wrap:wrap;gap:.3em 1.2em;margin:.4em 0;font-size:.9em;color:var(--muted)}
        .legend .tier{font-size:1.1em}
        .controls{display:flex;gap:.5em;align-items:center;margin:.3em 0;flex-wrap:wrap}
        .controls button{font:inherit;padding:.15em .7em;border:1px solid var(--line);border-radius:4px;background:var(--panel)}
        .controls input{flex:1;min-width:120px}
        audio{height:32px;max-width:260px;vertical-align:middle}
        .note{color:var(--muted);font-size:.9em}
        .sr{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
        .mini{width:100%;max-width:360px;height:auto;display:block}
        .bars{display:block}.bars .bar{fill:#9fb3c8}.bars .bar.tagged{fill:#33566f}.bars .tagmark{fill:var(--snore)}\
        .bars .axis{fill:var(--muted);font-size:10px}.bars .grid{stroke:var(--line);stroke-width:1}
        a{color:#0b5cad}
        @media (max-width:600px){body{padding:8px;font-size:14px}h1{font-size:1.25em}}
        @media print{.controls,audio{display:none}body{max-width:none}.timeline{min-width:0}h2{break-after:avoid}\
        table,figure,.card{break-inside:avoid}a{color:inherit;text-decoration:none}}
        """

    /// The night page's only script: zoom and pan of the timeline (the page reads the same without it).
    static let zoomScript = """
        (function(){var s=document.getElementById('timeline');if(!s)return;
        var x0=+s.dataset.x0,pw=+s.dataset.pw,d=+s.dataset.duration,k=1,v=0,pan=document.getElementById('pan'),
        out=document.getElementById('zoom-state');
        function draw(){var w=d/k;v=Math.max(0,Math.min(v,d-w));var tx=x0*(1-k)-k*v*pw/d;
        s.querySelectorAll('.z').forEach(function(g){g.setAttribute('transform','matrix('+k+' 0 0 1 '+tx+' 0)')});
        s.querySelectorAll('[data-t]').forEach(function(e){var x=x0+(+e.dataset.t)/d*pw;
        e.setAttribute('transform','translate('+(k*x+tx-x)+' 0)')});
        pan.disabled=k==1;pan.value=k==1?0:Math.round(1000*v/(d-w));out.textContent=k==1?'whole night':'×'+k}
        document.getElementById('zoom-in').onclick=function(){if(k<64){v+=d/k/4;k*=2;draw()}};
        document.getElementById('zoom-out').onclick=function(){if(k>1){k/=2;v-=d/k/4;draw()}};
        document.getElementById('zoom-reset').onclick=function(){k=1;v=0;draw()};
        pan.oninput=function(){v=(+pan.value)/1000*(d-d/k);draw()};
        document.querySelector('.controls').hidden=false;draw()})();
        """
}
