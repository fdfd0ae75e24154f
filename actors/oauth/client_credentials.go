package oauth

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"time"

	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"

	"github.com/mcpvisor/mcpvisor/messages"
)

// clientCredentialsToken fetches a token with the client-credentials
// grant, bound to resource (RFC 8707). The client authenticates with a
// signed JWT when the spec names a private key (private_key_jwt), else
// with its secret, in the header (client_secret_basic) unless the
// authorization server only takes it in the body (client_secret_post).
func clientCredentialsToken(ctx context.Context, client *http.Client, spec *messages.OAuthSpec, asm *oauthex.AuthServerMeta,
	resource string, scopes []string, now time.Time) (*oauth2.Token, oauth2.AuthStyle, error) {
	cfg := clientcredentials.Config{
		ClientID: spec.ClientID, ClientSecret: spec.ClientSecret, TokenURL: asm.TokenEndpoint, Scopes: scopes,
		EndpointParams: url.Values{"resource": {resource}},
		AuthStyle:      secretAuthStyle(asm.TokenEndpointAuthMethodsSupported),
	}
	if spec.PrivateKeyFile != "" {
		audience := asm.Issuer
		if audience == "" {
			audience = asm.TokenEndpoint
		}
		assertion, err := signedAssertion(spec.PrivateKeyFile, spec.ClientID, audience, now)
		if err != nil {
			return nil, 0, err
		}
		cfg.ClientSecret, cfg.AuthStyle = "", oauth2.AuthStyleInParams
		cfg.EndpointParams.Set("client_assertion_type", clientAssertionType)
		cfg.EndpointParams.Set("client_assertion", assertion)
	}
	tok, err := cfg.Token(context.WithValue(ctx, oauth2.HTTPClient, client))
	return tok, cfg.AuthStyle, err
}

// secretAuthStyle chooses how a client secret is sent, from what the
// authorization server advertises; RFC 8414's default is basic.
func secretAuthStyle(supported []string) oauth2.AuthStyle {
	if len(supported) > 0 && !slices.Contains(supported, "client_secret_basic") && slices.Contains(supported, "client_secret_post") {
		return oauth2.AuthStyleInParams
	}
	return oauth2.AuthStyleInHeader
}
