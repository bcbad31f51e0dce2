// Package hostile holds inputs tests share to attack idem with.
package hostile

// Passwords are passwords as typed into a URL: unencoded '/', '@', ':',
// '%', '?', '#', spaces, quotes, unicode, and percent-encoded forms. Each is
// built from distinctive fragments (Qz7…, Wk9…, Xy3…) so a test finds a
// partial leak too, like the tail after an '@'.
var Passwords = []string{
	"Qz7a/Wk9b@Xy3c",
	"Qz7d/Wk9e%40Xy3f",
	"Qz7g%2FWk9h@Xy3i",
	"Qz7j:Wk9k:Xy3l",
	"Qz7m%Wk9n%zzXy3o",
	"Qz7p?Wk9q=Xy3r&Wk9s",
	"Qz7t#Wk9u#Xy3v",
	"Qz7w Wk9x Xy3y",
	"Qz7zä日本Wk9A✓",
	"Qz7B%2FWk9C%3AXy3D%40%23%3F",
	"@Qz7E@Wk9F@",
	`Qz7G"Wk9H\Xy3I`,
	"Qz7J<Wk9K>&Xy3L",
}
