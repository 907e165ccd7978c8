// The HTML view: one self-contained page that works offline. The SVG that
// Graphviz drew is inline; a small script pans (drag), zooms (wheel) and
// shows a clicked node's op, attributes, type, target and reason, read from
// a JSON table in the page.
#include "fmt/format.h"
#include "tools/cli/viz_style.h"
#include "tools/cli/viz_writers.h"

namespace carve::viz {
namespace {

std::string Json(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '<': out += "\\u003c"; break;  // never "</script>" inside the page
      case '>': out += "\\u003e"; break;
      case '&': out += "\\u0026"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          out += fmt::format("\\u{:04x}", static_cast<int>(c));
        } else {
          out.push_back(c);
        }
    }
  }
  return out + "\"";
}

std::string Html(std::string_view s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '&': out += "&amp;"; break;
      case '"': out += "&quot;"; break;
      default: out.push_back(c);
    }
  }
  return out;
}

std::string NodeTable(const Graph& g) {
  std::string out = "{";
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = g.nodes[i];
    std::string where;
    for (int c = n.cluster; c >= 0; c = g.clusters[c].parent) {
      where = g.clusters[c].name + (where.empty() ? "" : " / " + where);
    }
    out += fmt::format(
        "{}\"n{}\":{{\"name\":{},\"op\":{},\"target\":{},\"cluster\":{},\"type\":{},"
        "\"attrs\":{},\"reason\":{}}}\n",
        i == 0 ? "" : ",", i, Json(n.name), Json(n.label),
        Json(n.target.empty() ? "host" : n.target), Json(where), Json(n.type), Json(n.attrs),
        Json(n.reason));
  }
  // The ops the preparation removed: the note (id "removed") lists them,
  // and each is found by its name (page.html#%0) with its reason.
  if (!g.removed.empty()) {
    std::string all;
    for (const RemovedOp& r : g.removed) {
      all += fmt::format("{}{}{}: {}", all.empty() ? "" : "\n", r.name.empty() ? "" : r.name + " ",
                         r.op, r.pass);
    }
    out += fmt::format(
        "{}\"removed\":{{\"name\":\"\",\"op\":{},\"target\":\"none\",\"cluster\":\"\","
        "\"type\":\"\",\"attrs\":\"\",\"reason\":{}}}\n",
        out.size() > 1 ? "," : "",
        Json(fmt::format("removed before partitioning by {}'s preparation passes",
                         g.removed_by)),
        Json(all));
    for (size_t i = 0; i < g.removed.size(); ++i) {
      const RemovedOp& r = g.removed[i];
      out += fmt::format(
          ",\"r{}\":{{\"name\":{},\"op\":{},\"target\":\"none: removed before "
          "partitioning\",\"cluster\":\"\",\"type\":\"\",\"attrs\":\"\",\"reason\":{}}}\n",
          i, Json(r.name), Json(r.op), Json(r.reason));
    }
  }
  // The ops lost to unbound regions: the note (id "lost") says how many.
  if (!g.lost.empty()) {
    std::string rest;
    for (size_t i = 1; i < g.lost.size(); ++i) rest += (i > 1 ? "\n" : "") + g.lost[i];
    out += fmt::format(
        "{}\"lost\":{{\"name\":\"\",\"op\":{},\"target\":\"none: never runs\",\"cluster\":\"\","
        "\"type\":\"\",\"attrs\":\"\",\"reason\":{}}}\n",
        out.size() > 1 ? "," : "", Json(g.lost[0]), Json(rest));
  }
  return out + "}";
}

constexpr const char* kStyle = R"(body{margin:0;font:13px Helvetica,Arial,sans-serif;display:flex;height:100vh}
#view{flex:1;overflow:hidden;cursor:grab;background:#fff}
#view svg{width:100%;height:100%}
#side{width:320px;border-left:1px solid #ccc;padding:8px;overflow:auto;background:#fafafa}
#side h1{font-size:15px;margin:0 0 6px}
#side button{font:12px Helvetica,Arial,sans-serif;margin:0 4px 8px 0}
.cl{display:inline-block;width:16px;height:10px;margin-right:4px;vertical-align:middle}
.sw{display:inline-block;width:12px;height:12px;border:1px solid #888;margin-right:4px;vertical-align:middle}
ul.notes{margin:4px 0;padding-left:16px;overflow-wrap:anywhere}
#details dt{font-weight:bold;margin-top:6px}#details dd{margin:0;white-space:pre-wrap;overflow-wrap:anywhere}
g.node.sel path,g.node.sel polygon,g.node.sel ellipse{stroke:#d00;stroke-width:3}
)";

constexpr const char* kScript = R"((function(){
var nodes=JSON.parse(document.getElementById('carve-nodes').textContent);
var view=document.getElementById('view'),svg=view.querySelector('svg');
if(!svg)return;
svg.removeAttribute('width');svg.removeAttribute('height');
var vb=svg.viewBox.baseVal,whole=[vb.x,vb.y,vb.width,vb.height],box=whole.slice();
function apply(){svg.setAttribute('viewBox',box.join(' '));}
// A node's box in the SVG's user units (those of the viewBox).
function bboxOf(g){var b=g.getBBox(),a=svg.getScreenCTM(),c=g.getScreenCTM();
 if(!a||!c)return null;var m=a.inverse().multiply(c);
 var p=svg.createSVGPoint(),q=svg.createSVGPoint();p.x=b.x;p.y=b.y;
 q.x=b.x+b.width;q.y=b.y+b.height;p=p.matrixTransform(m);q=q.matrixTransform(m);
 return [p.x,p.y,q.x,q.y];}
// The topmost offloaded operator node (else the topmost operator; inputs
// and weights never): a wide graph's top row is mostly inputs, weights or
// (in the region view) host ops feeding a region, spread over its whole
// width, so the middle of the drawing can be blank.
function firstOp(){var best=null,host=null;
 svg.querySelectorAll('g.node').forEach(function(g){var n=nodes[g.id];
  if(!n||/^(input|const|var)$/.test(n.op))return;var b=bboxOf(g);if(!b)return;
  if(n.target==='host'){if(!host||b[1]<host[1])host=b;}
  else if(!best||b[1]<best[1])best=b;});return best||host;}
// Open readable: the whole graph when it fits at 60% of its size or more,
// else 1:1 (one SVG point per pixel) from the top, centred on the first
// operator (on the drawing when it has none).
function actual(){var W=view.clientWidth||800,H=view.clientHeight||600,f=firstOp();
 var cx=f?(f[0]+f[2])/2:whole[0]+whole[2]/2;
 var x=Math.max(whole[0],Math.min(cx-W/2,whole[0]+whole[2]-W));
 var y=f?Math.max(whole[1],f[1]-Math.min(H/4,200)):whole[1];
 box=[whole[2]<W?whole[0]+(whole[2]-W)/2:x,y,W,H];apply();}
function fit(){box=whole.slice();apply();}
// Moves the view to the note `id` (removed, lost) at 1:1 from its corner.
function toNote(id){var g=document.getElementById(id);if(!g)return;var b=bboxOf(g);if(!b)return;
 var W=view.clientWidth||800,H=view.clientHeight||600;
 box=[Math.min(b[0]-20,b[2]+20-W),b[1]-20,W,H];apply();}
document.querySelectorAll('button[data-note]').forEach(function(btn){
 btn.addEventListener('click',function(){toNote(btn.getAttribute('data-note'));});});
(function(){var W=view.clientWidth||800,H=view.clientHeight||600;
 if(Math.min(W/whole[2],H/whole[3])<0.6)actual();
 // How many operator nodes the opening view shows: the Chromium test
 // asserts it is not zero.
 var shown=0;svg.querySelectorAll('g.node').forEach(function(g){var n=nodes[g.id],b;
  if(!n||/^(input|const|var)$/.test(n.op)||!(b=bboxOf(g)))return;
  if(b[2]>box[0]&&b[0]<box[0]+box[2]&&b[3]>box[1]&&b[1]<box[1]+box[3])++shown;});
 document.body.setAttribute('data-carve-ops-in-view',String(shown));})();
document.getElementById('fit').addEventListener('click',fit);
document.getElementById('actual').addEventListener('click',actual);
view.addEventListener('wheel',function(e){e.preventDefault();
 var r=svg.getBoundingClientRect(),k=e.deltaY<0?0.8:1.25;
 var px=box[0]+(e.clientX-r.left)/r.width*box[2],py=box[1]+(e.clientY-r.top)/r.height*box[3];
 box=[px-(px-box[0])*k,py-(py-box[1])*k,box[2]*k,box[3]*k];apply();},{passive:false});
var drag=null;
view.addEventListener('mousedown',function(e){drag=[e.clientX,e.clientY,box[0],box[1],false];});
window.addEventListener('mousemove',function(e){if(!drag)return;var r=svg.getBoundingClientRect();
 var dx=e.clientX-drag[0],dy=e.clientY-drag[1];if(Math.abs(dx)+Math.abs(dy)>3)drag[4]=true;
 box[0]=drag[2]-dx/r.width*box[2];box[1]=drag[3]-dy/r.height*box[3];apply();});
window.addEventListener('mouseup',function(){setTimeout(function(){drag=null;},0);});
var sel=null;
svg.addEventListener('click',function(e){if(drag&&drag[4])return;
 var g=e.target.closest('g.node');if(g&&nodes[g.id])show(g);});
// page.html#%3 (or #n7) opens with that node selected, moved into view if
// it is not.
function byHash(){var h=decodeURIComponent(location.hash.slice(1));if(!h)return;
 for(var id in nodes){if(id===h||nodes[id].name===h){var g=document.getElementById(id);
  if(!g){details(nodes[id]);return;}show(g);var b=bboxOf(g);
  if(b&&(b[0]<box[0]||b[2]>box[0]+box[2]||b[1]<box[1]||b[3]>box[1]+box[3])){
   box[0]=(b[0]+b[2]-box[2])/2;box[1]=(b[1]+b[3]-box[3])/2;apply();}return;}}}
function show(g){
 if(sel)sel.classList.remove('sel');sel=g;g.classList.add('sel');details(nodes[g.id]);}
function details(n){var d=document.getElementById('details');d.textContent='';
 var why=n.target==='host'?'why on the host':'why';
 [['node',n.name],['op',n.op],['target',n.target],['in',n.cluster],['type',n.type],
  ['attributes',n.attrs],[why,n.reason]].forEach(function(p){
  if(!p[1])return;var dt=document.createElement('dt'),dd=document.createElement('dd');
  dt.textContent=p[0];dd.textContent=p[1];d.appendChild(dt);d.appendChild(dd);});}
byHash();window.addEventListener('hashchange',byHash);
// Reached only when nothing above threw: the Chromium test looks for it.
document.body.setAttribute('data-carve-ready','1');
})();
)";

}  // namespace

std::string WriteHtml(const Graph& g, const std::string& svg) {
  size_t start = svg.find("<svg");
  std::string inline_svg = start == std::string::npos ? svg : svg.substr(start);
  Palette palette(g);
  std::string legend = fmt::format("<div><span class=\"sw\" style=\"background:{}\"></span>host</div>\n",
                                   palette.Fill(""));
  for (const std::string& t : palette.targets()) {
    legend += fmt::format(
        "<div><span class=\"sw\" style=\"background:{0}\"></span>{2}"
        " <span class=\"cl\" style=\"border:1px solid {0};background:{1}\"></span>"
        "its regions</div>\n",
        palette.Fill(t), palette.Light(t), Html(t));
  }
  // The composites' and the result's drawing, as docs/visualize.md lists them.
  legend +=
      "<div><span class=\"cl\" style=\"border:1px dashed #888\"></span>composite</div>\n"
      "<div><span class=\"cl\" style=\"border:3px solid #333\"></span>result of @main</div>\n"
      "<p>Host nodes say, per backend, why it did not take them.</p>\n";
  // The notes' text in the panel too, where it is never cut off by the
  // view: the drawing's note is out of sight at 1:1 on a large graph.
  if (!g.removed.empty()) {
    legend += fmt::format(
        "<p>The note lists the {} op{} {}'s preparation passes removed before partitioning "
        "(click it, or open the page at #%N, for each one's pass). "
        "<button data-note=\"removed\">show the note</button></p>\n<details><summary>removed "
        "ops</summary><ul class=\"notes\">",
        g.removed.size(), g.removed.size() == 1 ? "" : "s", Html(g.removed_by));
    for (const RemovedOp& r : g.removed) {
      legend += fmt::format("<li>{}{}: {}</li>", Html(r.name.empty() ? "" : r.name + " "),
                            Html(r.op), Html(r.pass));
    }
    legend += "</ul></details>\n";
  }
  if (!g.lost.empty()) {
    legend += fmt::format("<p>{} <button data-note=\"lost\">show the note</button></p>\n"
                          "<ul class=\"notes\">",
                          Html(g.lost[0]));
    for (size_t i = 1; i < g.lost.size(); ++i) legend += fmt::format("<li>{}</li>", Html(g.lost[i]));
    legend += "</ul>\n";
  }
  return fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<title>carve viz</title>\n<style>\n{}</style>\n</head>\n<body>\n"
      "<div id=\"view\">\n{}</div>\n"
      "<div id=\"side\">\n<h1>carve viz</h1>\n<p>Drag to pan, wheel to zoom, click a node for "
      "details.</p>\n<button id=\"fit\">whole graph</button><button id=\"actual\">1:1"
      "</button>\n{}<dl id=\"details\"></dl>\n</div>\n"
      "<script type=\"application/json\" id=\"carve-nodes\">{}</script>\n"
      "<script>\n{}</script>\n</body>\n</html>\n",
      kStyle, inline_svg, legend, NodeTable(g), kScript);
}

}  // namespace carve::viz
