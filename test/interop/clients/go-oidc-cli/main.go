// A command-line client as a Go developer writes it with Debian's golang.org/x/oauth2 (0.3.0) and
// github.com/coreos/go-oidc (2.1.0), each with its defaults: discovery, dynamic registration of
// the path-less loopback redirect URI http://127.0.0.1, a listener on an ephemeral port, PKCE S256
// (by hand: x/oauth2 0.3.0 has no helper), the code exchange (x/oauth2 probes the client
// authentication, HTTP Basic first), ID token verification, UserInfo and a refresh.
//
// Usage: go-oidc-cli <issuer> <token_endpoint_auth_method>. Prints "AUTHORIZE <url>" for the
// person's part, then "RESULT <json>" (or "ERROR <message>" and exit 1).
package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"

	oidc "github.com/coreos/go-oidc"
	"golang.org/x/oauth2"
)

type registration struct {
	ClientID     string `json:"client_id"`
	ClientSecret string `json:"client_secret"`
}

func random() string {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		panic(err)
	}
	return base64.RawURLEncoding.EncodeToString(b)
}

func register(endpoint, authMethod string) (registration, error) {
	body, _ := json.Marshal(map[string]interface{}{
		"client_name":                "go-oidc-cli",
		"redirect_uris":              []string{"http://127.0.0.1"},
		"token_endpoint_auth_method": authMethod,
	})
	var reg registration
	resp, err := http.Post(endpoint, "application/json", bytes.NewReader(body))
	if err != nil {
		return reg, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		return reg, fmt.Errorf("registration answered %d", resp.StatusCode)
	}
	return reg, json.NewDecoder(resp.Body).Decode(&reg)
}

// callback serves one redirect on the listener and returns its query.
func callback(listener net.Listener) map[string][]string {
	queries := make(chan map[string][]string, 1)
	server := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintln(w, "You can close this window.")
		queries <- r.URL.Query()
	})}
	go server.Serve(listener)
	query := <-queries
	// Shutdown, not Close: the handler may still be writing its answer when the query arrives,
	// and Close would cut that connection (the browser saw "other side closed" under load).
	go server.Shutdown(context.Background())
	return query
}

func run(ctx context.Context, issuer, authMethod string) (map[string]interface{}, error) {
	provider, err := oidc.NewProvider(ctx, issuer)
	if err != nil {
		return nil, err
	}
	var extra struct {
		RegistrationEndpoint string `json:"registration_endpoint"`
	}
	if err := provider.Claims(&extra); err != nil {
		return nil, err
	}
	reg, err := register(extra.RegistrationEndpoint, authMethod)
	if err != nil {
		return nil, err
	}
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	config := oauth2.Config{
		ClientID:     reg.ClientID,
		ClientSecret: reg.ClientSecret,
		Endpoint:     provider.Endpoint(),
		RedirectURL:  "http://" + listener.Addr().String(),
		Scopes:       []string{oidc.ScopeOpenID, "profile", "email"},
	}
	verifier, state := random(), random()
	sum := sha256.Sum256([]byte(verifier))
	fmt.Println("AUTHORIZE", config.AuthCodeURL(state,
		oauth2.SetAuthURLParam("code_challenge", base64.RawURLEncoding.EncodeToString(sum[:])),
		oauth2.SetAuthURLParam("code_challenge_method", "S256")))
	query := callback(listener)
	if len(query["state"]) != 1 || query["state"][0] != state || len(query["code"]) != 1 {
		return nil, fmt.Errorf("unexpected redirect %v", query)
	}
	token, err := config.Exchange(ctx, query["code"][0], oauth2.SetAuthURLParam("code_verifier", verifier))
	if err != nil {
		return nil, err
	}
	rawIDToken, _ := token.Extra("id_token").(string)
	idToken, err := provider.Verifier(&oidc.Config{ClientID: config.ClientID}).Verify(ctx, rawIDToken)
	if err != nil {
		return nil, err
	}
	userInfo, err := provider.UserInfo(ctx, oauth2.StaticTokenSource(token))
	if err != nil {
		return nil, err
	}
	refreshed, err := config.TokenSource(ctx, &oauth2.Token{RefreshToken: token.RefreshToken}).Token()
	if err != nil {
		return nil, err
	}
	return map[string]interface{}{
		"id_token_sub": idToken.Subject,
		"iss":          query["iss"],
		"userinfo_sub": userInfo.Subject,
		"scope":        token.Extra("scope"),
		"rotated":      refreshed.RefreshToken != "" && refreshed.RefreshToken != token.RefreshToken,
	}, nil
}

func main() {
	result, err := run(context.Background(), os.Args[1], os.Args[2])
	if err != nil {
		fmt.Println("ERROR", err)
		os.Exit(1)
	}
	out, _ := json.Marshal(result)
	fmt.Println("RESULT", string(out))
}
