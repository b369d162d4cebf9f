variable "settings" {
  type = map(object({
    value     = string
    sensitive = optional(bool, false)
  }))
  default = {}
}

resource "null_resource" "with_dynamic" {
  dynamic "setting" {
    for_each = var.settings
    iterator = s
    content {
      name  = s.key
      value = s.value.sensitive ? sensitive(s.value.value) : s.value.value
    }
  }
}

check "health" {
  data "http" "app" {
    url = "https://app.example.com"
  }

  assert {
    condition     = data.http.app.status_code == 200
    error_message = "${data.http.app.url} returned an unhealthy status code"
  }
}
