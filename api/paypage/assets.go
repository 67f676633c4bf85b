package paypage

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"html/template"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strings"

	"github.com/kassapay/kassa/api/httpx"
)

// pageFiles are the payment page's templates, styles, script and token icons,
// built into the binary: the page makes no request to any other host.
//
//go:embed assets
var pageFiles embed.FS

// asset is one static file, kept plain and gzipped.
type asset struct {
	body, gz []byte
	ctype    string
	hash     string // first 12 hex digits of its SHA-256: the cache-busting part of its URL
}

var (
	assets     = map[string]*asset{} // by name: "pay.css", "tokens/usdt.svg"
	pageTmpl   = template.Must(template.ParseFS(pageFiles, "assets/pay.html"))
	errorTmpl  = template.Must(template.ParseFS(pageFiles, "assets/error.html"))
	refundTmpl = template.Must(template.ParseFS(pageFiles, "assets/refund.html"))
)

func init() {
	err := fs.WalkDir(pageFiles, "assets", func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() || strings.HasSuffix(p, ".html") {
			return err
		}
		body, err := pageFiles.ReadFile(p)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(body)
		a := &asset{body: body, gz: httpx.Gzip(body), ctype: mime.TypeByExtension(path.Ext(p)), hash: hex.EncodeToString(sum[:6])}
		if a.ctype == "" {
			a.ctype = "application/octet-stream"
		}
		assets[strings.TrimPrefix(p, "assets/")] = a
		return nil
	})
	if err != nil {
		panic(err)
	}
}

// assetURL is the cache-busted URL of an asset: its content hash is in the path,
// so it can be cached for a year and a new build is fetched at once.
func assetURL(name string) string {
	a, ok := assets[name]
	if !ok {
		panic("payment page: no asset " + name)
	}
	return "/pay/assets/" + a.hash + "/" + name
}

// ServeAsset serves /pay/assets/{hash}/{name...} (immutable) and the token icons
// under /static/tokens/ that the registry's icon_uri values name (cached for a
// day; the page and available-tokens link the content-hashed URLs instead).
func ServeAsset(w http.ResponseWriter, r *http.Request) {
	name, hash := r.PathValue("name"), r.PathValue("hash")
	if strings.HasPrefix(r.URL.Path, "/static/") {
		name = strings.TrimPrefix(r.URL.Path, "/static/")
	}
	a, ok := assets[name]
	if !ok || (hash != "" && hash != a.hash) {
		httpx.NotFound(w, r)
		return
	}
	h := w.Header()
	h.Set("Content-Type", a.ctype)
	h.Set("X-Content-Type-Options", "nosniff")
	if hash != "" {
		h.Set("Cache-Control", "public, max-age=31536000, immutable")
	} else {
		h.Set("Cache-Control", "public, max-age=86400")
	}
	httpx.WriteBody(w, r, http.StatusOK, a.body, a.gz)
}
