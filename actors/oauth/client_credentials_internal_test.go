package oauth

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"math/big"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"github.com/mcpvisor/mcpvisor/messages"
)

// tokenEndpoint answers client-credentials requests after check approves
// them, recording the form.
func tokenEndpoint(t *testing.T, check func(r *http.Request) bool) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = r.ParseForm()
		w.Header().Set("Content-Type", "application/json")
		if r.PostForm.Get("grant_type") != "client_credentials" || r.PostForm.Get("resource") != "https://r.example/mcp" || !check(r) {
			w.WriteHeader(401)
			_, _ = w.Write([]byte(`{"error":"invalid_client"}`))
			return
		}
		_, _ = w.Write([]byte(`{"access_token":"cc-token","token_type":"Bearer","expires_in":60}`))
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestClientCredentials_SecretPostWhenOnlyPostIsOffered(t *testing.T) {
	t.Parallel()
	srv := tokenEndpoint(t, func(r *http.Request) bool {
		_, _, basic := r.BasicAuth()
		return !basic && r.PostForm.Get("client_id") == "c" && r.PostForm.Get("client_secret") == "s"
	})
	asm := &oauthex.AuthServerMeta{Issuer: srv.URL, TokenEndpoint: srv.URL, TokenEndpointAuthMethodsSupported: []string{"client_secret_post"}}
	if _, _, err := clientCredentialsToken(context.Background(), srv.Client(), &messages.OAuthSpec{ClientID: "c", ClientSecret: "s"}, asm, "https://r.example/mcp", nil, time.Now()); err != nil {
		t.Fatal(err)
	}
}

func TestClientCredentials_SecretBasicByDefault(t *testing.T) {
	t.Parallel()
	srv := tokenEndpoint(t, func(r *http.Request) bool {
		id, secret, basic := r.BasicAuth()
		return basic && id == "c" && secret == "s" && r.PostForm.Get("client_secret") == ""
	})
	asm := &oauthex.AuthServerMeta{Issuer: srv.URL, TokenEndpoint: srv.URL}
	if _, _, err := clientCredentialsToken(context.Background(), srv.Client(), &messages.OAuthSpec{ClientID: "c", ClientSecret: "s"}, asm, "https://r.example/mcp", nil, time.Now()); err != nil {
		t.Fatal(err)
	}
}

// private_key_jwt: the assertion verifies with the public key, for both
// key types, with the issuer as audience.
func TestClientCredentials_PrivateKeyJWT(t *testing.T) {
	t.Parallel()
	ec, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	rk, _ := rsa.GenerateKey(rand.Reader, 2048)
	for name, key := range map[string]any{"ES256": ec, "RS256": rk} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			der, _ := x509.MarshalPKCS8PrivateKey(key)
			file := filepath.Join(t.TempDir(), "key.pem")
			if err := os.WriteFile(file, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), 0o600); err != nil {
				t.Fatal(err)
			}
			var issuer string
			srv := tokenEndpoint(t, func(r *http.Request) bool {
				if r.PostForm.Get("client_assertion_type") != clientAssertionType || r.PostForm.Get("client_secret") != "" {
					return false
				}
				parts := strings.Split(r.PostForm.Get("client_assertion"), ".")
				if len(parts) != 3 {
					return false
				}
				var claims map[string]any
				body, _ := base64.RawURLEncoding.DecodeString(parts[1])
				_ = json.Unmarshal(body, &claims)
				if claims["iss"] != "c" || claims["sub"] != "c" || claims["aud"] != issuer {
					return false
				}
				digest := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
				sig, _ := base64.RawURLEncoding.DecodeString(parts[2])
				switch k := key.(type) {
				case *ecdsa.PrivateKey:
					return len(sig) == 64 && ecdsa.Verify(&k.PublicKey, digest[:], new(big.Int).SetBytes(sig[:32]), new(big.Int).SetBytes(sig[32:]))
				case *rsa.PrivateKey:
					return rsa.VerifyPKCS1v15(&k.PublicKey, crypto.SHA256, digest[:], sig) == nil
				}
				return false
			})
			issuer = srv.URL
			asm := &oauthex.AuthServerMeta{Issuer: srv.URL, TokenEndpoint: srv.URL}
			if _, _, err := clientCredentialsToken(context.Background(), srv.Client(), &messages.OAuthSpec{ClientID: "c", PrivateKeyFile: file}, asm, "https://r.example/mcp", nil, time.Now()); err != nil {
				t.Fatal(err)
			}
		})
	}
}
