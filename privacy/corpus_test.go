package privacy

import (
	"fmt"
	"strings"
	"testing"
)

// The corpus: secrets in the contexts a coding session shows them (env files,
// shell commands and their output, YAML, JSON and TOML configs, connection
// strings, logs), and look-alikes that must come through unchanged. Secrets
// are assembled from parts so that this file does not hold one whole.
//
// go test -run TestSecretCorpus -v ./privacy/ prints both rates; docs/privacy.md
// reports them.

type secretCase struct {
	context string
	text    string
	secrets []string // every one must be gone from the cleaned text
}

var (
	pwPunct   = "Xy!9" + "#kL$2@pQ"
	pwHash    = "s3cr" + "et#tail99"
	pwPlain   = "hunter" + "2hunter2"
	pwSpace   = "correct horse " + "battery staple"
	awsSecret = "wJalrXUtnFEMI/K7MDENG/" + "bPxRfiCYzEXAMPLEKEYq1"
	ghToken   = "ghp_" + "R4nd0mT0k3nVa1u3Xq9Zp2Lm8Kd7Wv5Bn3Jh6Yt1"
	awsID     = "AKIA" + "QZ3XW7PLM4RT6YHN"
	openAI    = "sk-proj-" + "Qm9yZVNlY3JldEtleUhlcmUxMjM0NTY3ODkw"
	anthropic = "sk-ant-api03-" + "Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MGFiY2RlZmdoaWprbG1ub3BxcnN0dXZ3eHl6MDEyMzQ1Njc4OTAtX2FiY2RlZmdoaWprbG1u" + "-AbCdEfAA"
	slackHook = "https://hooks.slack.com/services/" + "T01ABCDEF/B02GHIJKL/" + "q8Wd2Lx9Vz4Rk7Tn1Bm5Hc3J"
	npmToken  = "npm_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
	bearer    = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9" + ".eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ" + ".SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
	dbPass    = "Pg_" + "Adm1n!2024"
	stripeKey = "sk_live_" + "51HqLyjWDarjtT1zdp7dcQ9x"
	sshKey    = "-----BEGIN OPENSSH " + "PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\nQyNTUxOQAAACDxq8Wd2Lx9Vz4Rk7Tn1Bm5Hc3JqW8e2Lx9Vz4Rk7Tn1AAAAJgAAAAA\n-----END OPENSSH " + "PRIVATE KEY-----"
)

var secretCorpus = []secretCase{
	// env files
	{"env file", "cat .env\nDB_HOST=localhost\nDB_PASSWORD=" + pwPlain + "\nDEBUG=true\n", []string{pwPlain}},
	{"env file, punctuation", "DB_PASSWORD=" + pwPunct + "\nPORT=5432", []string{pwPunct}},
	{"env file, # inside the value", "ADMIN_PASSWORD=" + pwHash + "\n", []string{pwHash}},
	{"env file, quoted with spaces", `SMTP_PASSWORD="` + pwSpace + `"`, []string{pwSpace}},
	{"env file, export", "export GITHUB_TOKEN=" + ghToken, []string{ghToken}},
	{"env file, lower case", "password=" + pwPunct, []string{pwPunct}},
	{"env file, stripe", "STRIPE_SECRET_KEY=" + stripeKey, []string{stripeKey}},
	{"env file, openai", "OPENAI_API_KEY=" + openAI, []string{openAI}},
	{"env file, anthropic", "ANTHROPIC_API_KEY=" + anthropic, []string{anthropic}},
	{"env file, npm", "//registry.npmjs.org/:_authToken=" + npmToken, []string{npmToken}},
	// shell commands and their output
	{"bash output, env dump", "$ env | grep DB\nDB_USER=app\nDB_PASSWORD=" + pwPunct + "\n", []string{pwPunct}},
	{"bash, inline variable", "DB_PASSWORD=" + pwPlain + " ./manage.py migrate", []string{pwPlain}},
	{"bash, mid-line", "+ echo setting DB_PASSWORD=" + pwPunct + " for staging", []string{pwPunct}},
	{"mysql -p", "mysql -u root -p" + pwPunct + " shop < dump.sql", []string{pwPunct}},
	{"mysqldump -p", "mysqldump -h db -uadmin -p" + dbPass + " --all-databases", []string{dbPass}},
	{"--password=", "psql --host=db --password=" + dbPass + " app", []string{dbPass}},
	{"curl -u", "curl -u deploy:" + pwPunct + " https://ci.example.com/api", []string{pwPunct}},
	{"curl bearer", `curl -H "Authorization: Bearer ` + bearer + `" https://api.example.com`, []string{bearer}},
	{"docker login", "echo " + ghToken + " | docker login ghcr.io -u me --password-stdin", []string{ghToken}},
	{"git remote with token", "git remote add origin https://x-access-token:" + ghToken + "@github.com/acme/shop.git", []string{ghToken}},
	// YAML, JSON, TOML, INI
	{"yaml, quoted", "database:\n  user: app\n  password: \"" + pwPunct + "\"\n", []string{pwPunct}},
	{"yaml, plain", "smtp:\n  password: " + pwPlain + "\n", []string{pwPlain}},
	{"yaml, single quoted", "redis:\n  auth_token: '" + pwPunct + "'\n", []string{pwPunct}},
	{"json", `{"db": {"user": "app", "password": "` + pwPunct + `"}}`, []string{pwPunct}},
	{"json, api key", `{"apiKey": "` + openAI + `", "model": "gpt-4o"}`, []string{openAI}},
	{"toml", "[database]\nuser = \"app\"\npassword = \"" + pwPunct + "\"\n", []string{pwPunct}},
	{"aws credentials, unquoted", "[default]\naws_access_key_id = " + awsID + "\naws_secret_access_key = " + awsSecret + "\n", []string{awsID, awsSecret}},
	{"ini", "[client]\nuser=root\npassword=" + dbPass + "\n", []string{dbPass}},
	// connection strings
	{"postgres url", "DATABASE_URL=postgres://app:" + dbPass + "@db.internal:5432/shop", []string{dbPass}},
	{"mongodb url", "mongodb+srv://admin:" + pwPlain + "@cluster0.abcde.mongodb.net/test", []string{pwPlain}},
	{"redis url", "redis://:" + pwPlain + "@cache:6379/0", []string{pwPlain}},
	{"ado.net", "Server=tcp:db.example.com;Database=shop;User Id=sa;Password=" + dbPass + ";Encrypt=true", []string{dbPass}},
	{"jdbc", "jdbc:mysql://db:3306/shop?user=app&password=" + pwPlain + "&useSSL=true", []string{pwPlain}},
	// logs
	{"log line", `2025-03-04T10:00:00Z INFO connecting user=app password=` + pwPunct + ` host=db`, []string{pwPunct}},
	{"log, json", `{"level":"debug","msg":"login","token":"` + bearer + `"}`, []string{bearer}},
	{"log, slack webhook", "posting to " + slackHook, []string{slackHook[len("https://hooks.slack.com/services/"):]}},
	{"traceback with key", "botocore.exceptions.ClientError: key " + awsID + " is not authorized", []string{awsID}},
	{"private key in output", "cat ~/.ssh/id_ed25519\n" + sshKey, []string{"b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ"}},
}

// Look-alikes: names, numbers and code that look like secrets and are not.
var lookAlikes = []string{
	"AUTHOR=alice",
	"RECALL_DEFAULT_TOKEN_BUDGET=4000",
	"MAX_TOKENS=1024",
	"token = getToken(request)",
	"const token = req.headers.authorization",
	"password = os.environ[\"DB_PASSWORD\"]",
	"password: ${DB_PASSWORD}",
	"API_KEY=${OPENAI_API_KEY}",
	"token: ${{ secrets.GITHUB_TOKEN }}",
	"PASSWORD_FILE=/run/secrets/db_password",
	"TOKEN_URL=https://auth.example.com/oauth/token",
	"SECRET_NAME=prod-db-credentials",
	"password_min_length = 12",
	"def check_password(password: str) -> bool:",
	"if token is None: raise AuthError('no token')",
	"type Config struct { Password string `json:\"password\"` }",
	"the key point is that tokens are counted per prompt",
	"Edit orders.go: cache the order list in Redis for five minutes",
	"go test -tags sqlite_fts5 ./... passed (12 packages)",
	"DEBUG=true\nPORT=8080\nLOG_LEVEL=info",
	"https://example.com/docs/page?x=1&token_type=bearer",
	"mysql -u root -p shop < dump.sql",
	"psql postgres://localhost:5432/shop",
	"auth: true\nsecret_rotation_days: 30",
	"SESSION_TIMEOUT=3600\nAUTH_PROVIDER=github",
	"password: \"\"",
	"KEY_PREFIX=recall:",
	"git log --author=alice --since=2.weeks",
	"commit 3f2a9c1b7e4d5a6f8b9c0d1e2f3a4b5c6d7e8f90",
	"sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
	"uuid 123e4567-e89b-12d3-a456-426614174000",
	"tokenizer = porter unicode61",
	"passwd: files systemd",
	"Authorization header missing: send a Bearer token",
}

// secretCorpusRates cleans the corpus and returns the share of secrets removed
// and the share of look-alikes kept unchanged, with what went wrong.
func secretCorpusRates() (caught float64, kept float64, misses []string) {
	total, gone := 0, 0
	for _, c := range secretCorpus {
		out := Clean(c.text)
		for _, s := range c.secrets {
			total++
			if strings.Contains(out, s) {
				misses = append(misses, fmt.Sprintf("leaked (%s): %q", c.context, out))
			} else {
				gone++
			}
		}
	}
	same := 0
	for _, text := range lookAlikes {
		if out := Clean(text); out == text {
			same++
		} else {
			misses = append(misses, fmt.Sprintf("changed: %q -> %q", text, out))
		}
	}
	return float64(gone) / float64(total), float64(same) / float64(len(lookAlikes)), misses
}

func TestSecretCorpus(t *testing.T) {
	caught, kept, misses := secretCorpusRates()
	t.Logf("secrets redacted: %.1f%% of %d; look-alikes kept: %.1f%% of %d", 100*caught, countSecrets(), 100*kept, len(lookAlikes))
	for _, m := range misses {
		t.Error(m)
	}
}

func countSecrets() int {
	n := 0
	for _, c := range secretCorpus {
		n += len(c.secrets)
	}
	return n
}
