package oauth

import (
	"context"
	"net/http"
	"net/url"

	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"
)

// refreshToken refreshes rec's token at its token endpoint, with the
// resource the token is bound to (RFC 8707: the MCP specification has
// every token request carry it; x/oauth2's refresh sends only the grant
// and the refresh token). x/oauth2's client-credentials request lets
// grant_type be replaced, which makes it a refresh request with the same
// client authentication (auth style, detection) and error handling.
func refreshToken(ctx context.Context, client *http.Client, rec *Record) (*oauth2.Token, error) {
	cfg := clientcredentials.Config{
		ClientID: rec.ClientID, ClientSecret: rec.ClientSecret, TokenURL: rec.TokenURL, AuthStyle: rec.AuthStyle,
		EndpointParams: url.Values{
			"grant_type":    {"refresh_token"},
			"refresh_token": {rec.RefreshToken},
			"resource":      {rec.boundTo()},
		},
	}
	return cfg.Token(context.WithValue(ctx, oauth2.HTTPClient, client))
}
