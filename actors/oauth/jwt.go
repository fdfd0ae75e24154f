package oauth

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/asn1"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"os"
	"time"
)

// clientAssertionType is RFC 7523's client_assertion_type for a JWT.
const clientAssertionType = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"

// signedAssertion is a private_key_jwt client assertion (RFC 7523): a JWT
// issued by and about clientID for the authorization server audience,
// signed RS256 or ES256 by the PEM key's type.
func signedAssertion(keyFile, clientID, audience string, now time.Time) (string, error) {
	data, err := os.ReadFile(keyFile)
	if err != nil {
		return "", fmt.Errorf("private key: %w", err)
	}
	block, _ := pem.Decode(data)
	if block == nil {
		return "", fmt.Errorf("private key %s: no PEM block", keyFile)
	}
	key, err := parsePrivateKey(block.Bytes)
	if err != nil {
		return "", fmt.Errorf("private key %s: %w", keyFile, err)
	}
	var alg string
	switch key.(type) {
	case *rsa.PrivateKey:
		alg = "RS256"
	case *ecdsa.PrivateKey:
		alg = "ES256"
	default:
		return "", fmt.Errorf("private key %s: an RSA or P-256 key is needed, not %T", keyFile, key)
	}
	jti := make([]byte, 16)
	_, _ = rand.Read(jti)
	header, _ := json.Marshal(map[string]string{"alg": alg, "typ": "JWT"})
	claims, _ := json.Marshal(map[string]any{
		"iss": clientID, "sub": clientID, "aud": audience,
		"iat": now.Unix(), "exp": now.Add(5 * time.Minute).Unix(),
		"jti": base64.RawURLEncoding.EncodeToString(jti),
	})
	input := base64.RawURLEncoding.EncodeToString(header) + "." + base64.RawURLEncoding.EncodeToString(claims)
	digest := sha256.Sum256([]byte(input))
	var sig []byte
	switch k := key.(type) {
	case *rsa.PrivateKey:
		sig, err = rsa.SignPKCS1v15(rand.Reader, k, crypto.SHA256, digest[:])
	case *ecdsa.PrivateKey:
		sig, err = es256(k, digest[:])
	}
	if err != nil {
		return "", fmt.Errorf("sign client assertion: %w", err)
	}
	return input + "." + base64.RawURLEncoding.EncodeToString(sig), nil
}

func parsePrivateKey(der []byte) (any, error) {
	if k, err := x509.ParsePKCS8PrivateKey(der); err == nil {
		return k, nil
	}
	if k, err := x509.ParsePKCS1PrivateKey(der); err == nil {
		return k, nil
	}
	if k, err := x509.ParseECPrivateKey(der); err == nil {
		return k, nil
	}
	return nil, errors.New("not a PKCS#8, PKCS#1 or SEC 1 private key")
}

// es256 signs in JWS form: r and s, 32 bytes each.
func es256(k *ecdsa.PrivateKey, digest []byte) ([]byte, error) {
	if k.Curve.Params().BitSize != 256 {
		return nil, errors.New("ES256 needs a P-256 key")
	}
	der, err := ecdsa.SignASN1(rand.Reader, k, digest)
	if err != nil {
		return nil, err
	}
	r, s, err := parseASN1Signature(der)
	if err != nil {
		return nil, err
	}
	out := make([]byte, 64)
	r.FillBytes(out[:32])
	s.FillBytes(out[32:])
	return out, nil
}

func parseASN1Signature(der []byte) (r, s *big.Int, err error) {
	var sig struct{ R, S *big.Int }
	if _, err := asn1.Unmarshal(der, &sig); err != nil {
		return nil, nil, err
	}
	return sig.R, sig.S, nil
}
